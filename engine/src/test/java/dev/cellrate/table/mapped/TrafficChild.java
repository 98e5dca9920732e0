package dev.cellrate.table.mapped;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.Result;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Child-JVM main for the sharing and restart proofs, on a mapped {@link KeyedRateLimiter}.
 * <ul>
 * <li>{@code traffic FILE LOGS KEYS THREADS MILLIS [MIN_KEYS]}: {@link #slow} limiter; THREADS threads decide on
 * random keys in [0, KEYS) at {@code System.nanoTime()} for MILLIS ms, and on past it until the process admitted
 * at least MIN_KEYS distinct keys (at most 60 s more: a loaded host may give a JVM little time), each recording
 * its admissions in {@code LOGS-<thread>.log}.</li>
 * <li>{@code inserts FILE LOGS FIRST COUNT THREADS}: {@link #storm} limiter; thread t inserts the keys
 * FIRST + t, FIRST + t + THREADS, ... below FIRST + COUNT (one decision each), recording each admission.</li>
 * </ul>
 * Prints {@code READY} before the threads start and {@code DONE} after they end.
 */
public final class TrafficChild
{
    /** The restart and sharing proofs' limit: T = 1 s, tau = 9 s (burst 10), so a JVM restart refills nothing. */
    static final Limit SLOW = Limit.ofGcra(1_000_000_000L, 9_000_000_000L);

    private TrafficChild()
    {
    }

    static KeyedRateLimiter slow(final Path file)
    {
        return KeyedRateLimiter.builder(SLOW).mappedFile(file).slotCount(4096).shardCount(4).build();
    }

    /** 16 shards of 65536 slots, an idle grace of an hour (no key is evicted during a test). */
    static KeyedRateLimiter storm(final Path file)
    {
        return KeyedRateLimiter.builder(SLOW).mappedFile(file).slotCount(1 << 20).shardCount(16)
            .idleGraceNs(3_600_000_000_000L).build();
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[1]);
        final String logs = args[2];
        final boolean traffic = "traffic".equals(args[0]);
        final KeyedRateLimiter limiter = traffic ? slow(file) : storm(file);
        final int threads = Integer.parseInt(args[traffic ? 4 : 5]);
        final Thread[] workers = new Thread[threads];
        final int minKeys = traffic && args.length > 6 ? Integer.parseInt(args[6]) : 0;
        final AtomicIntegerArray admittedKeys = new AtomicIntegerArray(traffic ? Integer.parseInt(args[3]) : 0);
        final AtomicInteger distinctKeys = new AtomicInteger();
        for (int t = 0; t < threads; t++)
        {
            final AdmissionLog log = new AdmissionLog(Path.of(logs + "-" + t + ".log"));
            final int thread = t;
            workers[t] = new Thread(() ->
            {
                if (traffic)
                {
                    final int keys = Integer.parseInt(args[3]);
                    final long endNs = System.nanoTime() + Long.parseLong(args[5]) * 1_000_000L;
                    final long capNs = endNs + 60_000_000_000L;
                    final SplittableRandom random = new SplittableRandom(thread * 31L + ProcessHandle.current().pid());
                    long nowNs;
                    while ((nowNs = System.nanoTime()) - endNs < 0 || (distinctKeys.get() < minKeys && nowNs - capNs < 0))
                    {
                        final int key = random.nextInt(keys);
                        if (Result.isAdmitted(limiter.tryAcquire(key, 1, nowNs)))
                        {
                            log.admitted(nowNs, key);
                            if (admittedKeys.compareAndSet(key, 0, 1))
                            {
                                distinctKeys.incrementAndGet();
                            }
                        }
                    }
                }
                else
                {
                    final long first = Long.parseLong(args[3]);
                    final long end = first + Long.parseLong(args[4]);
                    for (long key = first + thread; key < end; key += threads)
                    {
                        final long nowNs = System.nanoTime();
                        if (Result.isAdmitted(limiter.tryAcquire(key, 1, nowNs)))
                        {
                            log.admitted(nowNs, key);
                        }
                    }
                }
            });
        }
        System.out.println("READY");
        System.out.flush();
        for (final Thread worker : workers)
        {
            worker.start();
        }
        for (final Thread worker : workers)
        {
            worker.join();
        }
        System.out.println("DONE");
        System.out.flush();
    }
}
