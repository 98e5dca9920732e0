package dev.cellrate.rls.bench;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A closed-loop grpc-java async load generator for {@code ShouldRateLimit} on loopback: {@code inflight} calls
 * outstanding over {@code channels} channels, each answer sending the next; descriptors
 * {@code (k, v<i mod keys>)} of domain {@code bench}. After a warm-up it measures for {@code seconds}: answers
 * per second, the latency percentiles (HdrHistogram, ns), over-limit answers, errors, and the CPU time the
 * server's processes used meanwhile (from {@code /proc/PID/stat}), hence answers per second per busy core; and that
 * CPU split by thread (from {@code /proc/PID/task/TID/stat}): the JIT compilers, the garbage collector, and the
 * rest (the event loops that answer), so the cost of an answer at steady state reads apart from compilation.
 * <p>
 * {@code LoadGenerator NAME PORT SECONDS INFLIGHT KEYS CLK_TCK PID[,PID...]}; the warm-up lasts
 * {@code -DwarmupSeconds} (default half the measured time, at least 3 s).
 */
public final class LoadGenerator
{
    private LoadGenerator()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String name = args[0];
        final int port = Integer.parseInt(args[1]);
        final int seconds = Integer.parseInt(args[2]);
        final int inflight = Integer.parseInt(args[3]);
        final int keys = Integer.parseInt(args[4]);
        final long clockTicks = Long.parseLong(args[5]);
        final String[] pids = args[6].split(",");
        final int channels = 2;
        final RateLimitRequest[] requests = new RateLimitRequest[keys];
        for (int i = 0; i < keys; i++)
        {
            requests[i] = RateLimitRequest.newBuilder().setDomain("bench").addDescriptors(RateLimitDescriptor
                .newBuilder().addEntries(RateLimitDescriptor.Entry.newBuilder().setKey("k").setValue("v" + i)))
                .build();
        }
        final ManagedChannel[] chans = new ManagedChannel[channels];
        final RateLimitServiceGrpc.RateLimitServiceStub[] stubs = new RateLimitServiceGrpc.RateLimitServiceStub[channels];
        for (int c = 0; c < channels; c++)
        {
            chans[c] = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().directExecutor().build();
            stubs[c] = RateLimitServiceGrpc.newStub(chans[c]);
        }
        final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final AtomicBoolean measuring = new AtomicBoolean();
        final AtomicBoolean stopping = new AtomicBoolean();
        final AtomicLong answers = new AtomicLong();
        final AtomicLong overLimit = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong sequence = new AtomicLong();
        final CountDownLatch drained = new CountDownLatch(inflight);
        for (int i = 0; i < inflight; i++)
        {
            new Caller(stubs[i % channels], requests, sequence, histogram, measuring, stopping, answers, overLimit,
                errors, drained).send();
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(Integer.getInteger("warmupSeconds", Math.max(3, seconds / 2))));
        synchronized (histogram)
        {
            histogram.reset();
        }
        final long cpuBefore = cpuTicks(pids);
        final java.util.Map<String, long[]> threadsBefore = threadTicks(pids);
        final long answersBefore = answers.get();
        final long startNs = System.nanoTime();
        measuring.set(true);
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        measuring.set(false);
        final long elapsedNs = System.nanoTime() - startNs;
        final long measured = answers.get() - answersBefore;
        final long cpuAfter = cpuTicks(pids);
        final java.util.Map<String, long[]> threadsAfter = threadTicks(pids);
        stopping.set(true);
        drained.await(10, TimeUnit.SECONDS);
        final double elapsedS = elapsedNs / 1e9;
        final double cpuS = (cpuAfter - cpuBefore) / (double)clockTicks;
        final double rate = measured / elapsedS;
        synchronized (histogram)
        {
            System.out.printf("%-22s %10.0f req/s  server CPU %5.2f cores  %9.0f req/s per core  " +
                    "p50 %7.1f us  p99 %7.1f us  p99.9 %7.1f us  over %d  errors %d  (inflight %d, keys %d)%n",
                name, rate, cpuS / elapsedS, cpuS > 0 ? measured / cpuS : 0,
                histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(99) / 1e3,
                histogram.getValueAtPercentile(99.9) / 1e3, overLimit.get(), errors.get(), inflight, keys);
        }
        final long[] byKind = new long[3];
        for (final java.util.Map.Entry<String, long[]> thread : threadsAfter.entrySet())
        {
            final long[] before = threadsBefore.get(thread.getKey());
            byKind[(int)thread.getValue()[0]] += thread.getValue()[1] - (null == before ? 0 : before[1]);
        }
        final double jitS = byKind[0] / (double)clockTicks;
        final double gcS = byKind[1] / (double)clockTicks;
        final double restS = byKind[2] / (double)clockTicks;
        System.out.printf("%-22s server CPU by thread: JIT %5.2f  GC %5.2f  other (event loops) %5.2f cores: " +
            "%9.0f req/s per core of the other threads%n", "", jitS / elapsedS, gcS / elapsedS, restS / elapsedS,
            restS > 0 ? measured / restS : 0);
        for (final ManagedChannel c : chans)
        {
            c.shutdownNow();
        }
    }

    private static long cpuTicks(final String[] pids) throws IOException
    {
        long ticks = 0;
        for (final String pid : pids)
        {
            final String stat = Files.readString(Path.of("/proc", pid.trim(), "stat"));
            final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
        }
        return ticks;
    }

    /**
     * @return per thread ({@code pid/tid}): its kind (0 JIT compiler, 1 GC, 2 any other) and its CPU ticks so far.
     * A thread that ends between two readings loses its ticks of the interval (JIT threads come and go when idle).
     */
    private static java.util.Map<String, long[]> threadTicks(final String[] pids) throws IOException
    {
        final java.util.Map<String, long[]> ticks = new java.util.HashMap<>();
        for (final String pid : pids)
        {
            final Path tasks = Path.of("/proc", pid.trim(), "task");
            try (java.util.stream.Stream<Path> threads = Files.list(tasks))
            {
                for (final Path thread : (Iterable<Path>)threads::iterator)
                {
                    final String stat;
                    final String name;
                    try
                    {
                        stat = Files.readString(thread.resolve("stat"));
                        name = Files.readString(thread.resolve("comm")).trim();
                    }
                    catch (final IOException gone)
                    {
                        continue; // the thread ended meanwhile
                    }
                    final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    final long t = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                    final int kind = name.contains("CompilerThre") ? 0 :
                        name.startsWith("GC Thread") || name.startsWith("G1 ") || name.equals("VM Thread") ? 1 : 2;
                    ticks.put(pid.trim() + "/" + thread.getFileName(), new long[] {kind, t});
                }
            }
        }
        return ticks;
    }

    private static final class Caller implements StreamObserver<RateLimitResponse>
    {
        private final RateLimitServiceGrpc.RateLimitServiceStub stub;
        private final RateLimitRequest[] requests;
        private final AtomicLong sequence;
        private final Histogram histogram;
        private final AtomicBoolean measuring;
        private final AtomicBoolean stopping;
        private final AtomicLong answers;
        private final AtomicLong overLimit;
        private final AtomicLong errors;
        private final CountDownLatch drained;
        private long sentNs;

        Caller(final RateLimitServiceGrpc.RateLimitServiceStub stub, final RateLimitRequest[] requests,
            final AtomicLong sequence, final Histogram histogram, final AtomicBoolean measuring,
            final AtomicBoolean stopping, final AtomicLong answers, final AtomicLong overLimit,
            final AtomicLong errors, final CountDownLatch drained)
        {
            this.stub = stub;
            this.requests = requests;
            this.sequence = sequence;
            this.histogram = histogram;
            this.measuring = measuring;
            this.stopping = stopping;
            this.answers = answers;
            this.overLimit = overLimit;
            this.errors = errors;
            this.drained = drained;
        }

        void send()
        {
            if (stopping.get())
            {
                drained.countDown();
                return;
            }
            final RateLimitRequest request = requests[(int)(sequence.getAndIncrement() % requests.length)];
            sentNs = System.nanoTime();
            stub.shouldRateLimit(request, this);
        }

        public void onNext(final RateLimitResponse response)
        {
            final long latencyNs = System.nanoTime() - sentNs;
            if (measuring.get())
            {
                synchronized (histogram)
                {
                    histogram.recordValue(Math.min(latencyNs, histogram.getHighestTrackableValue()));
                }
            }
            answers.incrementAndGet();
            if (RateLimitResponse.Code.OVER_LIMIT == response.getOverallCode())
            {
                overLimit.incrementAndGet();
            }
        }

        public void onError(final Throwable t)
        {
            errors.incrementAndGet();
            send();
        }

        public void onCompleted()
        {
            send();
        }
    }
}
