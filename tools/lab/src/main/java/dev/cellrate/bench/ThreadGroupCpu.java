package dev.cellrate.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Where a process's CPU time goes, by group of threads: the time each thread ran and waited for a CPU
 * ({@code /proc/self/task/N/schedstat}, in ns) and its voluntary and involuntary context switches ({@code status});
 * Linux only, empty elsewhere. Threads are grouped by thread name with its
 * trailing digits and separators dropped ({@code lettuce-nioEventLoop-4-1} and {@code -4-2} are one group). Threads
 * that end before the snapshot report their own time through {@link #addEnded(long[], long[])} under the group
 * {@value #CALLERS}.
 */
final class ThreadGroupCpu
{
    static final String CALLERS = "callers";

    private final AtomicLong endedRunNs = new AtomicLong();
    private final AtomicLong endedWaitNs = new AtomicLong();
    private final AtomicLong endedVoluntary = new AtomicLong();
    private final AtomicLong endedInvoluntary = new AtomicLong();
    private Map<String, long[]> before = new HashMap<>();

    /** Start a phase. */
    void start()
    {
        endedRunNs.set(0);
        endedWaitNs.set(0);
        endedVoluntary.set(0);
        endedInvoluntary.set(0);
        before = snapshot();
    }

    /** A thread that ends within the phase: its own {@link #self()} at its end minus at its start. */
    void addEnded(final long[] atStart, final long[] atEnd)
    {
        endedRunNs.addAndGet(atEnd[0] - atStart[0]);
        endedWaitNs.addAndGet(atEnd[1] - atStart[1]);
        endedVoluntary.addAndGet(atEnd[2] - atStart[2]);
        endedInvoluntary.addAndGet(atEnd[3] - atStart[3]);
    }

    /**
     * @return {@code {run ns, wait ns, voluntary switches, involuntary switches}} of the calling thread so far, or
     * zeros where Linux's files are missing.
     */
    static long[] self()
    {
        return read(Path.of("/proc/thread-self"));
    }

    /**
     * @return by group, {@code {run ns, wait ns, voluntary, involuntary switches}} since {@link #start()}: the threads alive now (minus their
     * time at the start, if alive then), and the ended callers.
     */
    Map<String, long[]> since()
    {
        final Map<String, long[]> groups = new TreeMap<>();
        final Map<String, long[]> now = snapshot();
        for (final Map.Entry<String, long[]> e : now.entrySet())
        {
            final long[] was = before.getOrDefault(e.getKey(), new long[4]);
            final long[] sum = groups.computeIfAbsent(group(e.getKey()), k -> new long[4]);
            for (int i = 0; i < 4; i++)
            {
                sum[i] += e.getValue()[i] - was[i];
            }
        }
        final long[] callers = groups.computeIfAbsent(CALLERS, k -> new long[4]);
        callers[0] += endedRunNs.get();
        callers[1] += endedWaitNs.get();
        callers[2] += endedVoluntary.get();
        callers[3] += endedInvoluntary.get();
        return groups;
    }

    /**
     * One line: each group's run time per decision and its wait for a CPU, in &micro;s, then its voluntary and
     * involuntary context switches per decision; largest run time first.
     */
    String line(final double decisions)
    {
        final StringBuilder out = new StringBuilder("    per decision, run/wait cpu-us, voluntary/involuntary switches:");
        since().entrySet().stream()
            .filter(e -> e.getValue()[0] / 1e3 / decisions >= 0.05)
            .sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
            .forEach(e -> out.append(String.format(" %s %.2f/%.2f %.2f/%.2f;", e.getKey(),
                e.getValue()[0] / 1e3 / decisions, e.getValue()[1] / 1e3 / decisions, e.getValue()[2] / decisions,
                e.getValue()[3] / decisions)));
        return out.toString();
    }

    /** Key: tid + " " + name. */
    private static Map<String, long[]> snapshot()
    {
        final Map<String, long[]> byThread = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task")))
        {
            for (final Path task : (Iterable<Path>) tasks::iterator)
            {
                try
                {
                    final String name = Files.readString(task.resolve("comm")).trim();
                    byThread.put(task.getFileName() + " " + name, read(task));
                }
                catch (final IOException ex)
                {
                    // the thread ended meanwhile
                }
            }
        }
        catch (final IOException ex)
        {
            byThread.clear();
        }
        return byThread;
    }

    private static String group(final String key)
    {
        final String name = key.substring(key.indexOf(' ') + 1);
        if (name.startsWith("Thread-"))
        {
            return CALLERS; // the phase's callers, alive at the snapshot
        }
        int end = name.length();
        while (end > 0 && (Character.isDigit(name.charAt(end - 1)) || '-' == name.charAt(end - 1) ||
            '#' == name.charAt(end - 1) || ' ' == name.charAt(end - 1)))
        {
            end--;
        }
        return 0 == end ? name : name.substring(0, end);
    }

    private static long[] read(final Path task)
    {
        final long[] values = new long[4];
        try
        {
            final String[] fields = Files.readString(task.resolve("schedstat")).trim().split(" ");
            values[0] = Long.parseLong(fields[0]);
            values[1] = Long.parseLong(fields[1]);
            for (final String line : Files.readAllLines(task.resolve("status")))
            {
                if (line.startsWith("voluntary_ctxt_switches:"))
                {
                    values[2] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
                else if (line.startsWith("nonvoluntary_ctxt_switches:"))
                {
                    values[3] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return new long[4]; // the thread ended meanwhile, or not Linux
        }
        return values;
    }
}
