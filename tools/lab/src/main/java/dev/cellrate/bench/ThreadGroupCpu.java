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
 * ({@code /proc/self/task/N/schedstat}, in ns; Linux only, empty elsewhere), grouped by thread name with its
 * trailing digits and separators dropped ({@code lettuce-nioEventLoop-4-1} and {@code -4-2} are one group). Threads
 * that end before the snapshot report their own time through {@link #addEnded(long, long)} under the group
 * {@value #CALLERS}.
 */
final class ThreadGroupCpu
{
    static final String CALLERS = "callers";

    private final AtomicLong endedRunNs = new AtomicLong();
    private final AtomicLong endedWaitNs = new AtomicLong();
    private Map<String, long[]> before = new HashMap<>();

    /** Start a phase. */
    void start()
    {
        endedRunNs.set(0);
        endedWaitNs.set(0);
        before = snapshot();
    }

    /** A thread that ends within the phase: its own run and wait time over the phase. */
    void addEnded(final long runNs, final long waitNs)
    {
        endedRunNs.addAndGet(runNs);
        endedWaitNs.addAndGet(waitNs);
    }

    /** @return {@code {run ns, wait ns}} of the calling thread so far, or zeros where schedstat is missing. */
    static long[] self()
    {
        return read(Path.of("/proc/thread-self/schedstat"));
    }

    /**
     * @return by group, {@code {run ns, wait ns}} since {@link #start()}: the threads alive now (minus their
     * time at the start, if alive then), and the ended callers.
     */
    Map<String, long[]> since()
    {
        final Map<String, long[]> groups = new TreeMap<>();
        final Map<String, long[]> now = snapshot();
        for (final Map.Entry<String, long[]> e : now.entrySet())
        {
            final long[] was = before.getOrDefault(e.getKey(), new long[3]);
            final long[] sum = groups.computeIfAbsent(group(e.getKey()), k -> new long[2]);
            sum[0] += e.getValue()[0] - was[0];
            sum[1] += e.getValue()[1] - was[1];
        }
        final long[] callers = groups.computeIfAbsent(CALLERS, k -> new long[2]);
        callers[0] += endedRunNs.get();
        callers[1] += endedWaitNs.get();
        return groups;
    }

    /** One line: each group's run time per decision (and its wait for a CPU), in &micro;s, largest first. */
    String line(final double decisions)
    {
        final StringBuilder out = new StringBuilder("    threads, cpu-us per decision (run/wait):");
        since().entrySet().stream()
            .filter(e -> e.getValue()[0] / 1e3 / decisions >= 0.05)
            .sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
            .forEach(e -> out.append(String.format(" %s %.2f/%.2f;", e.getKey(), e.getValue()[0] / 1e3 / decisions,
                e.getValue()[1] / 1e3 / decisions)));
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
                    byThread.put(task.getFileName() + " " + name, read(task.resolve("schedstat")));
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

    private static long[] read(final Path schedstat)
    {
        try
        {
            final String[] fields = Files.readString(schedstat).trim().split(" ");
            return new long[] {Long.parseLong(fields[0]), Long.parseLong(fields[1])};
        }
        catch (final IOException | RuntimeException ex)
        {
            return new long[2];
        }
    }
}
