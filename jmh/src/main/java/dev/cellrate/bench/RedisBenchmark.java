package dev.cellrate.bench;

import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.redis.FailPolicy;
import dev.cellrate.redis.LeasingRateLimiter;
import dev.cellrate.redis.RedisRateLimiter;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

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
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * cellrate-redis (plain: one EVALSHA per decision; two-tier: leases of k = 1000 intervals) against Bucket4j's
 * Lettuce backend (compare-and-swap), on one redis-server with one shared connection each and the same limit:
 * 1 M permits/s per key with a burst of 2^40, so every decision admits (the admit path is measured, not the
 * reject path). Keys: 1 (hot key) or 2^20 drawn at random. Each fork starts its own redis-server 6.2 from the
 * embedded-redis jar on a free loopback port, unless {@code -Dcellrate.redis.port=N} names a running one.
 * After each iteration the fork prints the commands the client sent per decision (a Lettuce CommandListener
 * counts them: round trips per decision; a command a script runs inside Redis is not a round trip).
 * <p>
 * {@code java -jar jmh/target/benchmarks.jar 'RedisBenchmark.(oneThread|twoThreads)' -f 1 -wi 1 -i 3 -w 2s -r 2s};
 * the paired run: {@code java -jar jmh/target/benchmarks.jar 'RedisBenchmark.paired' -p impl=bucket4j -bm thrpt}.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED")
public class RedisBenchmark
{
    private static final String EMBEDDED = "/redis-server-6.2.6-v5-linux-amd64";
    private static final long RATE_PER_SECOND = 1_000_000;
    private static final long BURST = 1L << 40;
    private static final long LEASE_INTERVALS = 1000;

    @Param({"cellrate", "cellrate-two-tier", "bucket4j"})
    public String impl;

    @Param({"1", "1048576"})
    public int keys;

    private Process server;
    private RedisClient client;
    private StatefulRedisConnection<byte[], byte[]> connection;
    private RedisRateLimiter plain;
    private LeasingRateLimiter twoTier;
    private ProxyManager<byte[]> bucket4j;
    private BucketConfiguration configuration;
    private String[] keyStrings;
    private byte[][] keyBytes;
    private BucketProxy hotBucket;
    private final Queue<Counter> counters = new ConcurrentLinkedQueue<>();
    private long commandsBefore;
    private final AtomicLong commandsSent = new AtomicLong();

    /** Per-thread decision count and key stream. */
    @State(Scope.Thread)
    public static class Counter
    {
        long decisions;
        long seed = System.nanoTime() | 1;

        @Setup(Level.Trial)
        public void register(final RedisBenchmark benchmark)
        {
            benchmark.counters.add(this);
        }

        int nextKey(final int mask)
        {
            long x = seed;
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            seed = x;
            return (int)x & mask;
        }
    }

    @Setup(Level.Trial)
    public void start() throws Exception
    {
        final String configured = System.getProperty("cellrate.redis.port");
        final int port = null != configured ? Integer.parseInt(configured) : launch();
        client = RedisClient.create("redis://127.0.0.1:" + port);
        client.addListener(new CommandListener()
        {
            public void commandStarted(final CommandStartedEvent event)
            {
                commandsSent.incrementAndGet();
            }
        });
        connection = client.connect(ByteArrayCodec.INSTANCE);
        connection.sync().flushall();
        keyStrings = new String[keys];
        keyBytes = new byte[keys][];
        for (int i = 0; i < keys; i++)
        {
            keyStrings[i] = "user:" + i;
            keyBytes[i] = ("b4j:user:" + i).getBytes(StandardCharsets.UTF_8);
        }
        final Limit limit = Limit.of(RATE_PER_SECOND, 1, TimeUnit.SECONDS, BURST);
        plain = RedisRateLimiter.builder(connection, limit, FailPolicy.CLOSED).timeoutNs(TimeUnit.SECONDS.toNanos(2)).build();
        twoTier = new LeasingRateLimiter(plain, LEASE_INTERVALS, TimeUnit.SECONDS.toNanos(1), 1 << 21);
        configuration = BucketConfiguration.builder()
            .addLimit(Bandwidth.builder().capacity(BURST).refillGreedy(RATE_PER_SECOND, Duration.ofSeconds(1)).build())
            .build();
        bucket4j = Bucket4jLettuce.casBasedBuilder(connection)
            .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
            .build();
        hotBucket = bucket4j.builder().build(keyBytes[0], () -> configuration);
    }

    private int launch() throws IOException, InterruptedException
    {
        final Path binary = Files.createTempFile("cellrate-bench-redis", "");
        binary.toFile().deleteOnExit();
        try (InputStream in = RedisBenchmark.class.getResourceAsStream(EMBEDDED))
        {
            if (null == in)
            {
                throw new IOException(EMBEDDED + " not on the classpath");
            }
            Files.copy(in, binary, StandardCopyOption.REPLACE_EXISTING);
        }
        binary.toFile().setExecutable(true);
        final int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = socket.getLocalPort();
        }
        server = new ProcessBuilder(List.of(binary.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--protected-mode", "no"))
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        for (int i = 0; i < 500; i++)
        {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port))
            {
                return port;
            }
            catch (final IOException ex)
            {
                Thread.sleep(20);
            }
        }
        throw new IOException("redis-server did not start");
    }

    @Setup(Level.Iteration)
    public void beforeIteration()
    {
        commandsBefore = commandsSent.get();
        for (final Counter c : counters)
        {
            c.decisions = 0;
        }
    }

    @TearDown(Level.Iteration)
    public void afterIteration()
    {
        final long commands = commandsSent.get() - commandsBefore;
        long decisions = 0;
        for (final Counter c : counters)
        {
            decisions += c.decisions;
        }
        System.out.printf("%n[redis] %s keys=%d: %d decisions, %d commands sent, %.4f round trips per decision%n",
            impl, keys, decisions, commands, decisions == 0 ? 0.0 : (double)commands / decisions);
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception
    {
        plain.close();
        connection.close();
        client.shutdown();
        if (null != server)
        {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private boolean decide(final Counter counter)
    {
        counter.decisions++;
        final int k = keys == 1 ? 0 : counter.nextKey(keys - 1);
        switch (impl)
        {
            case "cellrate":
                return Result.isAdmitted(plain.tryAcquire(keyStrings[k], 1));
            case "cellrate-two-tier":
                return Result.isAdmitted(twoTier.tryAcquire(keyStrings[k], 1));
            default:
                final BucketProxy bucket = keys == 1 ? hotBucket : bucket4j.builder().build(keyBytes[k], () -> configuration);
                return bucket.tryConsume(1);
        }
    }

    /**
     * cellrate (plain) and Bucket4j at the same time, one thread each on the shared connection: both see the same
     * machine load at every instant, so their ratio survives a noisy shared machine better than two runs minutes
     * apart. The {@code impl} parameter does not apply: run with {@code -p impl=bucket4j}.
     */
    @Benchmark
    @Group("paired")
    @GroupThreads(1)
    public boolean pairedCellrate(final Counter counter)
    {
        counter.decisions++;
        final int k = keys == 1 ? 0 : counter.nextKey(keys - 1);
        return Result.isAdmitted(plain.tryAcquire(keyStrings[k], 1));
    }

    /**
     * The other half of {@link #pairedCellrate}.
     */
    @Benchmark
    @Group("paired")
    @GroupThreads(1)
    public boolean pairedBucket4j(final Counter counter)
    {
        counter.decisions++;
        final int k = keys == 1 ? 0 : counter.nextKey(keys - 1);
        final BucketProxy bucket = keys == 1 ? hotBucket : bucket4j.builder().build(keyBytes[k], () -> configuration);
        return bucket.tryConsume(1);
    }

    @Benchmark
    @Threads(1)
    public boolean oneThread(final Counter counter)
    {
        return decide(counter);
    }

    @Benchmark
    @Threads(2)
    public boolean twoThreads(final Counter counter)
    {
        return decide(counter);
    }
}
