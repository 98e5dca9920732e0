package dev.cellrate.demo;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.stat.LimiterStats;
import dev.cellrate.stat.StatFile;
import dev.cellrate.stat.StatSampler;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The demo's keyed workload with its counters written to {@code dir/cellrate-stat.dat}: the enforced limiter
 * ("demo.keyed", 1000/s burst 100 per key) and a candidate limit in dry-run beside it ("demo.keyed.candidate",
 * 500/s burst 50 per key), with the table statistics sampled every 100 ms. Watch it with
 * {@code java -jar stat/target/cellrate-stat.jar dir 1}.
 */
final class DemoStats
{
    private DemoStats()
    {
    }

    static void keyedWorkload(final Path dir, final long seconds) throws InterruptedException
    {
        final int keyCount = 100_000;
        final int threads = 2;
        final StatFile file = StatFile.create(dir);
        final LimiterStats stats = file.limiter("demo.keyed");
        final LimiterStats candidateStats = file.limiter("demo.keyed.candidate");
        final KeyedRateLimiter keyed = KeyedRateLimiter.builder(Limit.perSecond(1_000, 100))
            .expectedKeys(keyCount).build();
        final KeyedRateLimiter candidate = KeyedRateLimiter.builder(Limit.perSecond(500, 50))
            .expectedKeys(keyCount).build();
        final StatSampler sampler = new StatSampler(SystemNanoClock.INSTANCE, 100_000_000L)
            .add(keyed, stats).add(candidate, candidateStats);
        final AgentRunner runner = new AgentRunner(
            new SleepingMillisIdleStrategy(10), Throwable::printStackTrace, null, sampler);
        AgentRunner.startOnThread(runner);
        final KeyedWorkload.KeyedDecider decider = (key, nowNs) ->
        {
            candidateStats.dryRun(key, candidate.tryAcquire(key, 1, nowNs));
            return stats.record(key, keyed.tryAcquire(key, 1, nowNs));
        };
        System.out.printf(Locale.ROOT,
            "Keyed workload with counters in %s (watch: java -jar stat/target/cellrate-stat.jar %s 1)%n" +
                "  %d threads, %,d keys (Zipf 0.99), 1000/s burst 100 per key enforced, 500/s burst 50 in dry-run%n",
            file.path(), dir, threads, keyCount);
        final KeyedWorkload.Outcome outcome = new KeyedWorkload(decider, keyCount, threads)
            .run(1_000_000_000L, seconds * 1_000_000_000L);
        sampler.sampleNow();
        runner.close();
        System.out.printf(Locale.ROOT, "  decisions/s          %,.0f (two limiters and their counters each)%n",
            outcome.decisionsPerSecond());
        System.out.printf(Locale.ROOT, "  admitted             %.1f%% of %,d decisions (counted after warm-up)%n",
            100.0 * outcome.admitted() / Math.max(1, outcome.decisions()), outcome.decisions());
        System.out.printf(Locale.ROOT, "  bytes allocated      %,d in total, %.6f per decision%n",
            outcome.allocatedBytes(), outcome.bytesPerDecision());
        file.close();
    }
}
