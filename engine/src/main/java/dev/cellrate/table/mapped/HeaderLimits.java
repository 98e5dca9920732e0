package dev.cellrate.table.mapped;

import static dev.cellrate.table.mapped.TableFileLayout.LIMIT_COUNT_OFFSET;
import static dev.cellrate.table.mapped.TableFileLayout.LIMIT_GENERATION_OFFSET;
import static dev.cellrate.table.mapped.TableFileLayout.LIMIT_LENGTH;
import static dev.cellrate.table.mapped.TableFileLayout.limitsCopyOffset;

import org.agrona.concurrent.AtomicBuffer;

/**
 * The limits in a table file's header ({@link TableFileLayout}, "limits"): two copies and a generation. A change
 * writes the copy the generation does not name, with its checksum, then advances the generation (one volatile
 * store), so a reader never sees half a change: it reads the generation, the copy it names and the generation
 * again, and retries if it moved. Changes are serialized by the file's lock ({@link SharedLimit#change}).
 */
final class HeaderLimits
{
    private HeaderLimits()
    {
    }

    /**
     * Write a new copy of the limits and make it the one in use.
     *
     * @param header     the header.
     * @param limitsNs   every limit's {@code (T, tau)}.
     * @param generation the new generation (the one in use plus one, or 0 for a new file).
     */
    static void write(final AtomicBuffer header, final long[] limitsNs, final long generation)
    {
        final int count = limitsNs.length / 2;
        final int copy = limitsCopyOffset(count, (int)(generation & 1));
        for (int i = 0; i < limitsNs.length; i++)
        {
            header.putLongVolatile(copy + i * Long.BYTES, limitsNs[i]);
        }
        final int checksumOffset = copy + count * LIMIT_LENGTH;
        header.putLongVolatile(checksumOffset, TableFileHeader.checksum(header, copy, checksumOffset));
        header.putLongVolatile(LIMIT_GENERATION_OFFSET, generation);
    }

    /**
     * @param header the header.
     * @return the generation of the limits in use (acquire).
     */
    static long generation(final AtomicBuffer header)
    {
        return header.getLongVolatile(LIMIT_GENERATION_OFFSET);
    }

    /**
     * Read the limits in use, consistent with one generation.
     *
     * @param header   the header.
     * @param limitsNs filled with every limit's {@code (T, tau)} (its length is twice the header's limit count).
     * @return the generation they belong to.
     */
    static long read(final AtomicBuffer header, final long[] limitsNs)
    {
        final int count = limitsNs.length / 2;
        while (true)
        {
            final long generation = header.getLongVolatile(LIMIT_GENERATION_OFFSET);
            final int copy = limitsCopyOffset(count, (int)(generation & 1));
            for (int i = 0; i < limitsNs.length; i++)
            {
                limitsNs[i] = header.getLongVolatile(copy + i * Long.BYTES);
            }
            if (header.getLongVolatile(LIMIT_GENERATION_OFFSET) == generation)
            {
                return generation;
            }
            Thread.onSpinWait();
        }
    }

    /**
     * @param header a header whose identity is valid.
     * @return whether the copy of the limits in use matches its checksum (under the file's lock: no change runs).
     */
    static boolean intact(final AtomicBuffer header)
    {
        final int count = header.getInt(LIMIT_COUNT_OFFSET);
        final int copy = limitsCopyOffset(count, (int)(header.getLongVolatile(LIMIT_GENERATION_OFFSET) & 1));
        final int checksumOffset = copy + count * LIMIT_LENGTH;
        return header.getLongVolatile(checksumOffset) == TableFileHeader.checksum(header, copy, checksumOffset);
    }

    /**
     * @param limitsNs every limit's {@code (T, tau)}.
     * @return {@code 2 (tau + T)} of the largest: the deepest a key of any of them can be (an empty bucket and a
     * debit's full burst of debt), saturated.
     */
    static long maxLagNs(final long[] limitsNs)
    {
        long maxNs = 0;
        for (int i = 0; i < limitsNs.length; i += 2)
        {
            final long ceilingNs = limitsNs[i] + limitsNs[i + 1];
            maxNs = Math.max(maxNs, ceilingNs > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * ceilingNs);
        }
        return maxNs;
    }
}
