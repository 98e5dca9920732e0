package dev.cellrate.bench;

import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.redis.FailPolicy;
import dev.cellrate.redis.RedisRateLimiter;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The distributed path pipelined, measured in one run against one redis-server: decisions per second of
 * cellrate-redis with 64 concurrent synchronous callers on one shared Lettuce connection against one synchronous
 * caller; against Bucket4j's Lettuce backend (compare-and-swap) with the same 64 callers on its own shared
 * connection; a batch of 32 keys per call against single calls, one caller; and (for information) one thread
 * keeping 64 asynchronous decisions in flight. Every configuration admits
 * (10^6 permits/s per key, burst 2^40, 2^16 keys drawn at random). The configurations run one after the other,
 * {@code rounds} times in turn, so each ratio is taken within one round (the same minute of a shared machine);
 * the report gives each ratio per round and their median. Each phase also reports where the CPU went, per
 * decision: this process's CPU time (the callers, Lettuce's I/O thread), redis-server's ({@code INFO cpu}), and the
 * context switches of this process's threads, and this process's CPU time by group of threads ({@link ThreadGroupCpu}),
 * so that a change can be judged on a busy machine too, where the
 * decisions per second follow the machine's load more than the code.
 * <p>
 * {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp tools/lab/target/lab.jar dev.cellrate.bench.RedisPipelined [seconds per phase, 2] [rounds, 9]}
 * starts the redis-server 6.2 shipped in the embedded-redis jar on a free loopback port; {@code
 * -Dcellrate.redis.server=/usr/bin/redis-server} runs another binary, {@code -Dcellrate.redis.port=N} uses a running
 * server, {@code -Dcellrate.bench.configs=1,2} runs only the configurations listed (by their index in the
 * report's order, from 0), and {@code -Dcellrate.bench.warmups=N} sets the unmeasured passes over the
 * configurations before the rounds (2 by default: after one pass of 2 s each on a busy host, the JIT compiler still
 * takes as much CPU per decision as the callers in the first measured round).
 */
public final class RedisPipelined
{
    private static final String EMBEDDED = "/redis-server-6.2.6-v5-linux-amd64";
    private static final int KEYS = 1 << 16;
    private static final int CALLERS = 64;
    private static final int BATCH = 32;
    private static final int STRIDE = 16; // longs between two callers' counters: one per cache-line pair
    /** Context switches of the phase's callers, each adding its own when it ends. */
    private static final java.util.concurrent.atomic.AtomicLong WORKER_SWITCHES =
        new java.util.concurrent.atomic.AtomicLong();
    /** CPU time of the phase's threads, by group (callers, Lettuce's I/O threads, GC, ...). */
    private static final ThreadGroupCpu THREADS = new ThreadGroupCpu();

    private final String[] keyStrings = new String[KEYS];
    private final byte[][] keyBytes = new byte[KEYS][];
    private RedisRateLimiter cellrate;
    private RedisRateLimiter oneCommandEach;
    private ProxyManager<byte[]> bucket4j;
    private BucketConfiguration configuration;

    private interface Caller
    {
        /** One call; returns decisions made (1, or the batch size). */
        int call(SplittableRandom random, CharSequence[] batchKeys, long[] batchPermits, long[] codes);
    }

    public static void main(final String[] args) throws Exception
    {
        final long phaseNs = TimeUnit.SECONDS.toNanos(args.length > 0 ? Long.parseLong(args[0]) : 2);
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        Process server = null;
        final String configured = System.getProperty("cellrate.redis.port");
        final int port;
        if (null != configured)
        {
            port = Integer.parseInt(configured);
        }
        else
        {
            port = freePort();
            server = launch(port);
        }
        final RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
        try (StatefulRedisConnection<byte[], byte[]> forCellrate = client.connect(ByteArrayCodec.INSTANCE);
             StatefulRedisConnection<byte[], byte[]> forBucket4j = client.connect(ByteArrayCodec.INSTANCE))
        {
            forCellrate.sync().flushall();
            System.out.println("redis-server " + info(forCellrate, "redis_version") + " on port " + port +
                "; load average " + loadAverage() + "; " + Runtime.getRuntime().availableProcessors() + " CPUs");
            new RedisPipelined().run(forCellrate, forBucket4j, phaseNs, rounds, client.connect());
        }
        finally
        {
            client.shutdown();
            if (null != server)
            {
                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private void run(
        final StatefulRedisConnection<byte[], byte[]> forCellrate, final StatefulRedisConnection<byte[], byte[]> forBucket4j,
        final long phaseNs, final int rounds, final StatefulRedisConnection<String, String> admin) throws Exception
    {
        final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        for (int i = 0; i < KEYS; i++)
        {
            keyStrings[i] = "user:" + i;
            keyBytes[i] = ("b4j:user:" + i).getBytes(StandardCharsets.UTF_8);
        }
        final Limit limit = Limit.of(1_000_000, 1, TimeUnit.SECONDS, 1L << 40);
        cellrate = RedisRateLimiter.builder(forCellrate, limit, FailPolicy.CLOSED)
            .timeoutNs(TimeUnit.SECONDS.toNanos(5)).build();
        oneCommandEach = RedisRateLimiter.builder(forCellrate, limit, FailPolicy.CLOSED)
            .timeoutNs(TimeUnit.SECONDS.toNanos(5)).coalesceCalls(false).build();
        configuration = BucketConfiguration.builder()
            .addLimit(Bandwidth.builder().capacity(1L << 40).refillGreedy(1_000_000, Duration.ofSeconds(1)).build())
            .build();
        bucket4j = Bucket4jLettuce.casBasedBuilder(forBucket4j)
            .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
            .build();

        final Caller single = (r, k, p, c) -> Result.isAdmitted(cellrate.tryAcquire(keyStrings[r.nextInt(KEYS)], 1)) ? 1 : 0;
        final Caller uncoalesced = (r, k, p, c) ->
            Result.isAdmitted(oneCommandEach.tryAcquire(keyStrings[r.nextInt(KEYS)], 1)) ? 1 : 0;
        final Caller batch = (r, k, p, c) ->
        {
            for (int i = 0; i < BATCH; i++)
            {
                k[i] = keyStrings[r.nextInt(KEYS)];
            }
            return cellrate.tryAcquireBatch(k, p, BATCH, c);
        };
        final Semaphore inFlight = new Semaphore(CALLERS);
        final Caller async = (r, k, p, c) ->
        {
            inFlight.acquireUninterruptibly();
            cellrate.tryAcquireAsync(keyStrings[r.nextInt(KEYS)], 1, null, code -> inFlight.release());
            return 1;
        };
        final Caller peer = (r, k, p, c) ->
            bucket4j.builder().build(keyBytes[r.nextInt(KEYS)], () -> configuration).tryConsume(1) ? 1 : 0;

        final String[] names = {"cellrate, 1 sync caller", "cellrate, 64 sync callers", "bucket4j, 64 callers",
            "bucket4j, 1 caller", "cellrate, batch of 32, 1 caller", "cellrate, 64 async in flight",
            "cellrate, 64 sync, 1 command each"};
        final Caller[] callers = {single, single, peer, peer, batch, async, uncoalesced};
        final int[] threads = {1, CALLERS, CALLERS, 1, 1, 1, CALLERS};
        final boolean[] runs = selected(callers.length);
        final int warmUps = Integer.getInteger("cellrate.bench.warmups", 2);
        System.out.println("warm-up, " + warmUps + " passes");
        for (int pass = 0; pass < warmUps; pass++)
        {
            for (int c = 0; c < callers.length; c++)
            {
                if (runs[c])
                {
                    measure(callers[c], threads[c], Math.min(phaseNs, TimeUnit.SECONDS.toNanos(2)));
                }
            }
        }
        final double[][] rates = new double[rounds][callers.length];
        final double[][] perTrip = new double[rounds][callers.length];
        final double[][] clientUs = new double[rounds][callers.length];
        final double[][] serverUs = new double[rounds][callers.length];
        final double[][] switches = new double[rounds][callers.length];
        for (int round = 0; round < rounds; round++)
        {
            for (int c = 0; c < callers.length; c++)
            {
                if (!runs[c])
                {
                    rates[round][c] = Double.NaN;
                    perTrip[round][c] = Double.NaN;
                    clientUs[round][c] = Double.NaN;
                    serverUs[round][c] = Double.NaN;
                    switches[round][c] = Double.NaN;
                    continue;
                }
                final RedisRateLimiter counted = 6 == c ? oneCommandEach : 2 == c || 3 == c ? null : cellrate;
                final long tripsBefore = null == counted ? 0 : counted.roundTrips();
                final double serverBefore = serverCpuSeconds(admin);
                final long clientBefore = os.getProcessCpuTime();
                final java.util.Map<String, Long> switchesBefore = contextSwitches();
                WORKER_SWITCHES.set(0);
                THREADS.start();
                final long startNs = System.nanoTime();
                rates[round][c] = measure(callers[c], threads[c], phaseNs);
                final double decisions = rates[round][c] * (System.nanoTime() - startNs) / 1e9;
                clientUs[round][c] = (os.getProcessCpuTime() - clientBefore) / 1e3 / decisions;
                serverUs[round][c] = (serverCpuSeconds(admin) - serverBefore) * 1e6 / decisions;
                switches[round][c] = (switchesSince(switchesBefore) + WORKER_SWITCHES.get()) / decisions;
                perTrip[round][c] = null == counted ? Double.NaN : decisions / (counted.roundTrips() - tripsBefore);
                System.out.printf("round %d  %-32s %,12.0f decisions/s  %6.1f decisions per round trip" +
                    "  cpu-us per decision: client %6.2f, redis-server %6.2f; client context switches %5.2f%n",
                    round + 1, names[c], rates[round][c], perTrip[round][c], clientUs[round][c], serverUs[round][c],
                    switches[round][c]);
                System.out.println(THREADS.line(decisions));
            }
        }
        System.out.printf("%nmedians over %d rounds of %d s per configuration (load average now %s):%n", rounds,
            TimeUnit.NANOSECONDS.toSeconds(phaseNs), loadAverage());
        for (int c = 0; c < callers.length; c++)
        {
            final int column = c;
            System.out.printf("  %-32s %,12.0f decisions/s  %6.1f decisions per round trip" +
                "  cpu-us per decision: client %6.2f, redis-server %6.2f; client context switches %5.2f%n", names[c],
                median(rounds, r -> rates[r][column]), median(rounds, r -> perTrip[r][column]),
                median(rounds, r -> clientUs[r][column]), median(rounds, r -> serverUs[r][column]),
                median(rounds, r -> switches[r][column]));
        }
        report("64 sync callers / 1 sync caller (goal >= 5)", rounds, r -> rates[r][1] / rates[r][0]);
        report("cellrate / bucket4j, 64 callers (goal >= 3)", rounds, r -> rates[r][1] / rates[r][2]);
        report("cellrate / bucket4j, 1 caller", rounds, r -> rates[r][0] / rates[r][3]);
        report("batch of 32 / 32 single sync calls (goal >= 10)", rounds, r -> rates[r][4] / rates[r][0]);
        report("64 async in flight / 1 sync caller", rounds, r -> rates[r][5] / rates[r][0]);
        report("64 sync, 1 command each / bucket4j, 64 callers", rounds, r -> rates[r][6] / rates[r][2]);
        report("64 sync coalesced / 1 command each", rounds, r -> rates[r][1] / rates[r][6]);
        report("bucket4j / cellrate cpu-us per decision, 64 callers", rounds,
            r -> (clientUs[r][2] + serverUs[r][2]) / (clientUs[r][1] + serverUs[r][1]));
        System.out.println("fallbacks " + cellrate.fallbacks() + ", key errors " + cellrate.keyErrors() +
            ", round trips " + cellrate.roundTrips());
        cellrate.close();
        oneCommandEach.close();
    }

    /**
     * The configurations to run: all, or those listed by index in {@code -Dcellrate.bench.configs=1,2} (0: one
     * caller, 1: 64 callers, 2: Bucket4j 64 callers, 3: Bucket4j one caller, 4: batch, 5: async, 6: one command
     * each).
     */
    private static boolean[] selected(final int count)
    {
        final boolean[] runs = new boolean[count];
        final String listed = System.getProperty("cellrate.bench.configs");
        if (null == listed)
        {
            Arrays.fill(runs, true);
            return runs;
        }
        for (final String index : listed.split(","))
        {
            runs[Integer.parseInt(index.trim())] = true;
        }
        return runs;
    }

    private interface PerRound
    {
        double of(int round);
    }

    private static void report(final String name, final int rounds, final PerRound ratio)
    {
        final StringBuilder each = new StringBuilder();
        for (int r = 0; r < rounds; r++)
        {
            each.append(r == 0 ? "" : ", ").append(String.format("%.2f", ratio.of(r)));
        }
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int r = 0; r < rounds; r++)
        {
            min = Math.min(min, ratio.of(r));
            max = Math.max(max, ratio.of(r));
        }
        System.out.printf("  %-48s median %6.2f  (%.2f-%.2f; rounds: %s)%n", name, median(rounds, ratio), min, max,
            each);
    }

    private static double median(final int rounds, final PerRound value)
    {
        final double[] values = new double[rounds];
        for (int r = 0; r < rounds; r++)
        {
            values[r] = value.of(r);
        }
        Arrays.sort(values);
        return rounds % 2 == 1 ? values[rounds / 2] : (values[rounds / 2 - 1] + values[rounds / 2]) / 2;
    }

    /** Decisions per second of {@code threads} callers looping on {@code caller} for {@code phaseNs}. */
    private static double measure(final Caller caller, final int threads, final long phaseNs) throws Exception
    {
        final AtomicLongArray counts = new AtomicLongArray(threads * STRIDE);
        final CyclicBarrier start = new CyclicBarrier(threads + 1);
        final long[] window = new long[2];
        final List<Thread> workers = new ArrayList<>();
        final long[] endAt = new long[1];
        for (int t = 0; t < threads; t++)
        {
            final int slot = t * STRIDE;
            final Thread worker = new Thread(() ->
            {
                final SplittableRandom random = new SplittableRandom(slot * 31L + System.nanoTime());
                final CharSequence[] keys = new CharSequence[BATCH];
                final long[] permits = new long[BATCH];
                Arrays.fill(permits, 1);
                final long[] codes = new long[BATCH];
                try
                {
                    start.await();
                }
                catch (final Exception ex)
                {
                    return;
                }
                final long end = endAt[0];
                final Path self = Path.of("/proc/thread-self");
                final long switchesAtStart = switchesOf(self);
                final long[] cpuAtStart = ThreadGroupCpu.self();
                long made = 0;
                while (System.nanoTime() < end)
                {
                    made += caller.call(random, keys, permits, codes);
                }
                WORKER_SWITCHES.addAndGet(switchesOf(self) - switchesAtStart);
                final long[] cpuAtEnd = ThreadGroupCpu.self();
                THREADS.addEnded(cpuAtStart, cpuAtEnd);
                counts.lazySet(slot, made);
            });
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        window[0] = System.nanoTime();
        endAt[0] = window[0] + phaseNs;
        start.await();
        for (final Thread worker : workers)
        {
            worker.join();
        }
        window[1] = System.nanoTime();
        long total = 0;
        for (int t = 0; t < threads; t++)
        {
            total += counts.get(t * STRIDE);
        }
        return total * 1e9 / (window[1] - window[0]);
    }

    /** Context switches so far of each thread of this process, voluntary and not (Linux; empty elsewhere). */
    private static java.util.Map<String, Long> contextSwitches()
    {
        final java.util.Map<String, Long> byThread = new java.util.HashMap<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/self/task")))
        {
            for (final Path task : (Iterable<Path>) tasks::iterator)
            {
                byThread.put(task.getFileName().toString(), switchesOf(task));
            }
        }
        catch (final IOException ex)
        {
            byThread.clear();
        }
        return byThread;
    }

    /** Switches of the threads alive at the end (minus their count at the start, if alive then). */
    private static long switchesSince(final java.util.Map<String, Long> before)
    {
        long total = 0;
        for (final java.util.Map.Entry<String, Long> e : contextSwitches().entrySet())
        {
            total += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return total;
    }

    private static long switchesOf(final Path task)
    {
        long total = 0;
        try
        {
            for (final String line : Files.readAllLines(task.resolve("status")))
            {
                if (line.contains("ctxt_switches:"))
                {
                    total += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return 0; // the thread ended meanwhile
        }
        return total;
    }

    /** The server's CPU time so far (user + system), from {@code INFO cpu}. */
    private static double serverCpuSeconds(final StatefulRedisConnection<String, String> admin)
    {
        double seconds = 0;
        for (final String line : admin.sync().info("cpu").split("\r?\n"))
        {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:"))
            {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1));
            }
        }
        return seconds;
    }

    private static String info(final StatefulRedisConnection<byte[], byte[]> connection, final String field)
    {
        for (final String line : connection.sync().info("server").split("\r?\n"))
        {
            if (line.startsWith(field + ":"))
            {
                return line.substring(field.length() + 1);
            }
        }
        return "?";
    }

    private static String loadAverage()
    {
        try
        {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        }
        catch (final IOException ex)
        {
            return "?";
        }
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    private static Process launch(final int port) throws IOException, InterruptedException
    {
        String binary = System.getProperty("cellrate.redis.server");
        if (null == binary)
        {
            final Path file = Files.createTempFile("cellrate-bench-redis", "");
            file.toFile().deleteOnExit();
            try (InputStream in = RedisPipelined.class.getResourceAsStream(EMBEDDED))
            {
                if (null == in)
                {
                    throw new IOException(EMBEDDED + " not on the classpath");
                }
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            }
            file.toFile().setExecutable(true);
            binary = file.toString();
        }
        final Process server = new ProcessBuilder(List.of(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--protected-mode", "no"))
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        for (int i = 0; i < 500; i++)
        {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port))
            {
                return server;
            }
            catch (final IOException ex)
            {
                Thread.sleep(20);
            }
        }
        throw new IOException("redis-server did not start");
    }
}
