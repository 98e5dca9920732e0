package dev.cellrate.bench;

import dev.cellrate.TestFronts;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.table.SlotTable;

/**
 * Whether a block of memory sits on transparent huge pages: reads {@code /proc/self/smaps} (Linux) and reports
 * the mapping that holds an address, its size, resident bytes and {@code AnonHugePages}, i.e. how much of it the
 * kernel backs with 2 MB pages. Used by the lab tools ({@code PagesCpuTime}, {@code PagesProbe}) and, with
 * {@code -Dcellrate.bench.smaps=true}, by {@link KeyedBenchmark} and {@link KeyedBatchBenchmark} at the end of
 * each fork (docs/keyed-table.md, "Huge pages"). Setup and teardown only: it allocates.
 */
final class Smaps
{
    /** System property that makes the keyed benchmarks print their table's mapping at the end of a fork. */
    static final String PROPERTY = "cellrate.bench.smaps";

    private Smaps()
    {
    }

    /**
     * @return true if the keyed benchmarks should print their table's mapping.
     */
    static boolean wanted()
    {
        return Boolean.getBoolean(PROPERTY);
    }

    /**
     * @param limiter a keyed limiter.
     * @return the address of byte 0 of its table (the table's private {@code address} field, read reflectively).
     */
    static long tableAddress(final KeyedRateLimiter limiter)
    {
        return longField(TestFronts.tableOf(limiter), SlotTable.class, "address");
    }

    static long longField(final Object owner, final Class<?> type, final String name)
    {
        try
        {
            final Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field.getLong(owner);
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            return 0;
        }
    }

    /**
     * @param label   what the address is.
     * @param address an address inside a mapping of this process.
     * @return one line: the mapping's range, size, Rss and AnonHugePages in kB (and the share on huge pages), or
     * why not.
     */
    static String report(final String label, final long address)
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(Paths.get("/proc/self/smaps"));
        }
        catch (final IOException | RuntimeException ex)
        {
            return label + ": /proc/self/smaps not readable (" + ex + ")";
        }
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            final int dash = line.indexOf('-');
            final int space = line.indexOf(' ');
            if (dash <= 0 || space <= dash || !isHex(line, 0, dash) || !isHex(line, dash + 1, space))
            {
                continue;
            }
            final long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
            final long end = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
            if (Long.compareUnsigned(address, start) < 0 || Long.compareUnsigned(address, end) >= 0)
            {
                continue;
            }
            long rss = -1;
            long huge = -1;
            String eligible = "?";
            for (int j = i + 1; j < lines.size() && !isMappingHeader(lines.get(j)); j++)
            {
                final String field = lines.get(j);
                if (field.startsWith("Rss:"))
                {
                    rss = kb(field);
                }
                else if (field.startsWith("AnonHugePages:"))
                {
                    huge = kb(field);
                }
                else if (field.startsWith("THPeligible:"))
                {
                    eligible = field.substring("THPeligible:".length()).trim();
                }
            }
            final long sizeKb = (end - start) / 1024;
            return String.format("%s: mapping %x-%x, %d kB, Rss %d kB, AnonHugePages %d kB (%.0f%% of Rss), "
                + "THPeligible %s, 2 MB-aligned start: %s", label, start, end, sizeKb, rss, huge,
                rss > 0 ? 100.0 * huge / rss : 0.0, eligible, (start & ((2 << 20) - 1)) == 0);
        }
        return label + ": no mapping holds " + Long.toHexString(address);
    }

    /**
     * @return the AnonHugePages of the whole process in kB ({@code /proc/self/smaps_rollup}), or -1.
     */
    static long processHugeKb()
    {
        try
        {
            for (final String line : Files.readAllLines(Paths.get("/proc/self/smaps_rollup")))
            {
                if (line.startsWith("AnonHugePages:"))
                {
                    return kb(line);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
        return -1;
    }

    private static boolean isMappingHeader(final String line)
    {
        final int dash = line.indexOf('-');
        final int space = line.indexOf(' ');
        return dash > 0 && space > dash && isHex(line, 0, dash) && isHex(line, dash + 1, space);
    }

    private static boolean isHex(final String s, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            if (Character.digit(s.charAt(i), 16) < 0)
            {
                return false;
            }
        }
        return to > from;
    }

    private static long kb(final String field)
    {
        final String[] parts = field.trim().split("\\s+");
        return Long.parseLong(parts[1]);
    }
}
