package dev.cellrate.rls;

import dev.cellrate.rls.config.ConfigLoader;
import dev.cellrate.rls.config.RateLimitRule;
import dev.cellrate.rls.config.RlsConfig;
import dev.cellrate.stat.StatFile;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gRPC call's answer, written directly in wire form, is byte for byte what protobuf writes for the
 * {@link RateLimitResponse} of the same decided plan: every kind of status (no rule, unlimited, refund, admitted,
 * refused, shadowed; with and without a rule name), remaining and reset values at their edges, 1 to 64
 * descriptors, each header form and the global shadow mode. Encoding allocates nothing.
 */
class WireAnswerTest
{
    private static final String CONFIG =
        "domain: d\ndescriptors:\n" +
        "  - key: named\n    rate_limit: {name: the_limit, unit: minute, requests_per_unit: 60}\n" +
        "  - key: plain\n    rate_limit: {unit: hour, requests_per_unit: 4294967295}\n" +
        "  - key: zero\n    rate_limit: {unit: second, requests_per_unit: 0}\n" +
        "  - key: shadow\n    shadow_mode: true\n    rate_limit: {unit: day, requests_per_unit: 3}\n" +
        "  - key: free\n    rate_limit: {unlimited: true}\n";

    private static final long[] EDGES = {0, 1, 127, 128, 16_383, 16_384, 999_999_999, 1_000_000_000,
        1_000_000_001, 86_400_000_000_000L, 0xFFFF_FFFFL, 0x1_0000_0000L, Long.MAX_VALUE};

    @Test
    void wireBytesAreProtobufsBytesForTheSamePlan() throws Exception
    {
        final RlsConfig config = ConfigLoader.loadTexts("w.yaml", CONFIG);
        final List<RateLimitRule> rules = config.rules();
        final RuleState[] states = new RuleState[rules.size()];
        for (int r = 0; r < states.length; r++)
        {
            states[r] = new RuleState(rules.get(r), null, null);
        }
        final StatFile file = StatFile.inMemory(RlsService.ENGINE_COUNTERS, 0);
        final RuleStats stats = new RuleStats("d", "d.any", file);
        final SplittableRandom random = new SplittableRandom(42);
        int compared = 0;
        for (final RlsService.Headers headers : RlsService.Headers.values())
        {
            for (final boolean globalShadow : new boolean[] {false, true})
            {
                final Answers answers = new Answers(globalShadow, headers);
                for (int round = 0; round < 300; round++)
                {
                    final int count = round < 5 ? 64 : 1 + random.nextInt(round % 3 == 0 ? 64 : 4);
                    final Plan plan = plan(count, states, stats, random);
                    final RateLimitResponse message = answers.respond(plan);
                    final byte[] wire = answers.encode(plan).toByteArray();
                    assertArrayEquals(message.toByteArray(), wire, () -> "plan of " + count + " as " + message);
                    assertEquals(message, RateLimitResponse.parseFrom(wire));
                    compared++;
                }
            }
        }
        assertEquals(1800, compared);
    }

    private static Plan plan(final int count, final RuleState[] states, final RuleStats stats,
        final SplittableRandom random)
    {
        final RateLimitRequest.Builder request = RateLimitRequest.newBuilder().setDomain("d");
        for (int i = 0; i < count; i++)
        {
            request.addDescriptors(RateLimitDescriptor.getDefaultInstance());
        }
        final Plan plan = new Plan(64).reset(request.build(), 0);
        for (int i = 0; i < count; i++)
        {
            final int pick = random.nextInt(states.length + 1);
            if (pick == states.length)
            {
                continue; // no rule
            }
            plan.rules[i] = states[pick].rule;
            plan.states[i] = states[pick];
            plan.stats[i] = stats;
            plan.unlimited[i] = states[pick].rule.unlimited();
            plan.refund[i] = random.nextInt(6) == 0;
            plan.over[i] = random.nextBoolean();
            plan.hits[i] = random.nextInt(3);
            plan.remaining[i] = random.nextBoolean() ? EDGES[random.nextInt(EDGES.length)] : random.nextLong(100);
            plan.resetNs[i] = random.nextBoolean() ? EDGES[random.nextInt(EDGES.length)] :
                random.nextLong(3_600_000_000_000L);
        }
        return plan;
    }

    @Test
    void encodingAndStreamingAllocateNothing() throws Exception
    {
        final RlsConfig config = ConfigLoader.loadTexts("w.yaml", CONFIG);
        final RuleState state = new RuleState(config.rules().get(0), null, null);
        final RuleStats stats = new RuleStats("d", "d.named", StatFile.inMemory(RlsService.ENGINE_COUNTERS, 0));
        final Plan plan = new Plan(64).reset(RateLimitRequest.newBuilder().setDomain("d")
            .addDescriptors(RateLimitDescriptor.getDefaultInstance()).build(), 0);
        plan.rules[0] = state.rule;
        plan.states[0] = state;
        plan.stats[0] = stats;
        plan.hits[0] = 1;
        final Answers answers = new Answers(false, RlsService.Headers.IETF);
        final ByteArrayOutputStream sink = new ByteArrayOutputStream(1 << 20);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        long bytes = 0;
        for (int pass = 0; pass < 2; pass++) // the first pass warms up
        {
            sink.reset();
            final long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 10_000; i++)
            {
                plan.remaining[0] = i;
                plan.resetNs[0] = i * 1_000_003L;
                ((io.grpc.Drainable)answers.encode(plan).stream()).drainTo(sink);
            }
            bytes = threads.getThreadAllocatedBytes(thread) - before;
        }
        assertTrue(sink.size() > 0);
        assertTrue(bytes < 1_000, bytes + " bytes allocated by 10,000 answers");
    }
}
