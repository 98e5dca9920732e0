package dev.cellrate.table.mapped;

import org.agrona.concurrent.AtomicBuffer;

import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * The limits of a table file, as every process that has it open sees them ({@link HeaderLimits}): a front that
 * follows them compares {@link #generation()} with the generation it decides under (one load of a header word
 * that changes only with the limit) and rereads them when it moved. {@link #change} is the one way to change
 * them: the reconfiguration of a reconfigurable keyed limiter. Thread-safe.
 */
public final class SharedLimit
{
    private final Path file;
    private final AtomicBuffer header;
    private final int limitCount;

    /**
     * @param opened the table file, open.
     */
    SharedLimit(final TableFile opened)
    {
        file = opened.path;
        header = opened.header;
        limitCount = opened.spec.limitCount();
    }

    /**
     * @return the generation of the limits in use: advanced by one by every {@link #change} of any process.
     */
    public long generation()
    {
        return HeaderLimits.generation(header);
    }

    /**
     * @return the limits in use and their generation: {@code {generation, T0, tau0, T1, tau1, ...}}.
     */
    public long[] read()
    {
        final long[] limitsNs = new long[2 * limitCount];
        final long generation = HeaderLimits.read(header, limitsNs);
        final long[] answer = new long[1 + limitsNs.length];
        answer[0] = generation;
        System.arraycopy(limitsNs, 0, answer, 1, limitsNs.length);
        return answer;
    }

    /**
     * Change the limits for every process of the file: under the file's lock, write the copy not in use, advance
     * the generation, and force the header to the device.
     *
     * @param limitsNs the new limits' {@code (T, tau)}, as many as the file holds.
     * @throws IllegalArgumentException if the count differs from the file's.
     * @throws IllegalStateException    naming the file if it cannot be locked.
     */
    public void change(final long[] limitsNs)
    {
        if (limitsNs.length != 2 * limitCount)
        {
            throw new IllegalArgumentException("the file " + file + " holds " + limitCount + " limits, not " +
                limitsNs.length / 2);
        }
        final long[] copy = limitsNs.clone();
        TableFile.underFileLock(file, () ->
        {
            HeaderLimits.write(header, copy, HeaderLimits.generation(header) + 1);
            ((MappedByteBuffer)header.byteBuffer()).force();
        });
    }

    /**
     * @return {@code 2 (tau + T)} of the largest limit in use: the deepest a key can be.
     */
    long maxLagNs()
    {
        final long[] limitsNs = new long[2 * limitCount];
        HeaderLimits.read(header, limitsNs);
        return HeaderLimits.maxLagNs(limitsNs);
    }
}
