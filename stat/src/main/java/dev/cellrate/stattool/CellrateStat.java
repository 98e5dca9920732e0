package dev.cellrate.stattool;

import dev.cellrate.stat.MappedTableStats;
import dev.cellrate.stat.StatReader;
import dev.cellrate.stat.TopKeys;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * {@code cellrate-stat <dir> [interval-seconds] [--count N] [--top N] [--wait-ms N]}: prints the counters of
 * the process writing {@code <dir>/cellrate-stat.dat} (see {@code dev.cellrate.stat.StatFile}), like AeronStat.
 * {@code cellrate-stat --table <file>} prints a keyed table kept in a file ({@code mappedFile}): its limit,
 * geometry, live keys and counters ({@link MappedTableStats}), read without touching what its processes write.
 * <p>
 * Without an interval it prints once, with each cumulative statistic's average rate per second since the
 * writer started. With an interval it prints every {@code interval-seconds} (forever, or {@code --count}
 * times), each rate over the last interval. Then the top rejected keys of each limiter that keeps a sketch.
 * Exit code 0, or 1 if the file cannot be read (the message says why).
 */
public final class CellrateStat
{
    private CellrateStat()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * @param args the command line.
     * @param out  where the counters go.
     * @param err  where errors go.
     * @return the exit code.
     * @throws InterruptedException if interrupted between intervals.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
        throws InterruptedException
    {
        Path dir = null;
        double intervalSeconds = 0;
        long count = Long.MAX_VALUE;
        int top = 5;
        long waitMs = 2_000;
        Path table = null;
        try
        {
            for (int i = 0; i < args.length; i++)
            {
                switch (args[i])
                {
                    case "--count" -> count = Long.parseLong(args[++i]);
                    case "--top" -> top = Integer.parseInt(args[++i]);
                    case "--wait-ms" -> waitMs = Long.parseLong(args[++i]);
                    case "--table" -> table = Path.of(args[++i]);
                    case "-h", "--help" ->
                    {
                        usage(out);
                        return 0;
                    }
                    default ->
                    {
                        if (null == dir)
                        {
                            dir = Path.of(args[i]);
                        }
                        else
                        {
                            intervalSeconds = Double.parseDouble(args[i]);
                        }
                    }
                }
            }
        }
        catch (final RuntimeException ex)
        {
            usage(err);
            return 2;
        }
        if (null != table)
        {
            return printTable(table, out, err);
        }
        if (null == dir || intervalSeconds < 0 || count < 1)
        {
            usage(err);
            return 2;
        }
        StatReader reader;
        try
        {
            reader = StatReader.open(dir, waitMs);
        }
        catch (final RuntimeException ex)
        {
            err.println("cellrate-stat: " + ex.getMessage());
            return 1;
        }
        List<StatReader.Stat> stats = reader.stats();
        long[] previous = values(reader, stats);
        long previousNs = System.nanoTime();
        if (0 == intervalSeconds)
        {
            final double sinceStartS = Math.max(1e-3, (System.currentTimeMillis() - reader.startTimestampMs()) / 1e3);
            print(out, reader, stats, previous, new long[stats.size()], sinceStartS, "avg since start", top);
            return 0;
        }
        for (long printed = 0; printed < count; printed++)
        {
            Thread.sleep((long)(intervalSeconds * 1_000));
            if (reader.isReplaced())
            {
                try
                {
                    reader = StatReader.open(dir, waitMs);
                }
                catch (final RuntimeException ex)
                {
                    err.println("cellrate-stat: the writer went away: " + ex.getMessage());
                    return 1;
                }
                out.println("(the statistics file was replaced: a new writer, pid " + reader.pid() + ")");
                stats = reader.stats();
                previous = new long[stats.size()];
            }
            final List<StatReader.Stat> now = reader.stats();
            final long[] values = values(reader, now);
            final long nowNs = System.nanoTime();
            final long[] before = now.size() == stats.size() ? previous : new long[now.size()];
            print(out, reader, now, values, before, (nowNs - previousNs) / 1e9, "last interval", top);
            stats = now;
            previous = values;
            previousNs = nowNs;
        }
        return 0;
    }

    private static int printTable(final Path table, final PrintStream out, final PrintStream err)
    {
        try
        {
            out.print(MappedTableStats.read(table).describe());
            out.flush();
            return 0;
        }
        catch (final RuntimeException ex)
        {
            err.println("cellrate-stat: " + ex.getMessage());
            return 1;
        }
    }

    private static long[] values(final StatReader reader, final List<StatReader.Stat> stats)
    {
        final long[] values = new long[stats.size()];
        for (int i = 0; i < values.length; i++)
        {
            values[i] = reader.value(stats.get(i));
        }
        return values;
    }

    private static void print(
        final PrintStream out, final StatReader reader, final List<StatReader.Stat> stats, final long[] values,
        final long[] before, final double seconds, final String rateBasis, final int top)
    {
        out.printf(Locale.ROOT, "%s - cellrate-stat pid %d, started %s, rate/s over %s (%.3f s)%n",
            Instant.now(), reader.pid(), Instant.ofEpochMilli(reader.startTimestampMs()), rateBasis, seconds);
        out.printf(Locale.ROOT, "%-32s %-22s %20s %14s%n", "limiter", "statistic", "value", "rate/s");
        for (int i = 0; i < values.length; i++)
        {
            final StatReader.Stat stat = stats.get(i);
            final String rate = stat.kind().isCumulative() ?
                String.format(Locale.ROOT, "%.1f", (values[i] - before[i]) / seconds) : "-";
            out.printf(Locale.ROOT, "%-32s %-22s %20d %14s%n", stat.limiter(), stat.kind().label(), values[i], rate);
        }
        if (top > 0)
        {
            for (final StatReader.Sketch sketch : reader.sketches())
            {
                final TopKeys.Entry[] entries = reader.top(sketch, top);
                out.printf(Locale.ROOT, "top rejected keys of %s:%s%n", sketch.limiter(), entries.length == 0 ? " none" : "");
                for (final TopKeys.Entry entry : entries)
                {
                    out.printf(Locale.ROOT, "  key %-20d rejections %14d (over-estimate <= %d)%n",
                        entry.key(), entry.count(), entry.error());
                }
            }
        }
        out.println();
        out.flush();
    }

    private static void usage(final PrintStream out)
    {
        out.println("usage: cellrate-stat <dir> [interval-seconds] [--count N] [--top N] [--wait-ms N]");
        out.println("  prints the counters in <dir>/cellrate-stat.dat once (rates averaged since the writer started)");
        out.println("  or every interval-seconds (rates over the last interval), N times or until stopped.");
        out.println("       cellrate-stat --table <file>");
        out.println("  prints the limit, geometry and counters of a keyed table kept in <file> (mappedFile).");
    }
}
