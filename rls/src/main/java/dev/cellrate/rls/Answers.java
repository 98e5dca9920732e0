package dev.cellrate.rls;

import com.google.protobuf.Duration;
import dev.cellrate.Decision;
import dev.cellrate.Result;
import dev.cellrate.rls.config.RateLimitRule;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes the response of a decided {@link Plan} into an {@link AnswerSink}: one status per descriptor (OK without
 * a rule; OK with the largest remaining when unlimited; else the rule's limit, remaining and time to reset,
 * OVER_LIMIT when refused and not in shadow mode), the overall code (OVER_LIMIT iff a status is, unless the global
 * shadow mode), the statistics of every descriptor, and the headers of the descriptor that refused first, else of
 * the one with the fewest remaining.
 * <p>
 * Threading: any thread; the header scratch is per thread.
 */
final class Answers
{
    private static final long UINT32_MAX = 0xFFFF_FFFFL;
    private static final int OK = RateLimitResponse.Code.OK_VALUE;
    private static final int OVER_LIMIT = RateLimitResponse.Code.OVER_LIMIT_VALUE;

    private final boolean globalShadowMode;
    private final RlsService.Headers headers;
    private final AtomicLong globalShadowCount = new AtomicLong();
    private final ThreadLocal<HeaderScratch> scratch = ThreadLocal.withInitial(HeaderScratch::new);

    Answers(final boolean globalShadowMode, final RlsService.Headers headers)
    {
        this.globalShadowMode = globalShadowMode;
        this.headers = headers;
    }

    long globalShadowCount()
    {
        return globalShadowCount.get();
    }

    /**
     * @param plan a decided plan.
     * @return its response as a protobuf message.
     */
    RateLimitResponse respond(final Plan plan)
    {
        final Message message = new Message();
        write(plan, message);
        return message.response.build();
    }

    /**
     * @param plan a decided plan.
     * @return its response as wire bytes, in this thread's reused holder (to be sent before the thread encodes
     * another).
     */
    WireAnswer encode(final Plan plan)
    {
        final WireAnswer wire = WireAnswer.forThisThread();
        write(plan, wire);
        return wire;
    }

    private void write(final Plan plan, final AnswerSink sink)
    {
        boolean over = false;
        int headerIndex = -1; // the descriptor whose headers are sent: the first refused, else the fewest remaining
        boolean headerRefused = false;
        long headerRemaining = Long.MAX_VALUE;
        for (int i = 0; i < plan.count; i++)
        {
            final RateLimitRule rule = plan.rules[i];
            if (null == rule)
            {
                sink.status(OK, null, 0, AnswerSink.NONE);
            }
            else if (plan.unlimited[i])
            {
                sink.status(OK, null, UINT32_MAX, AnswerSink.NONE);
                plan.stats[i].totalHits.add(plan.hits[i]);
                plan.stats[i].recordDecision(Result.ADMITTED, false);
            }
            else if (plan.refund[i])
            {
                // a refund: answered OK with what is left after it; not counted as hits
                sink.status(OK, plan.states[i], Math.min(plan.remaining[i], UINT32_MAX), plan.resetNs[i]);
            }
            else
            {
                final boolean shadowed = plan.over[i] && rule.shadowMode();
                final boolean refused = plan.over[i] && !shadowed;
                over |= refused;
                final long remaining = plan.over[i] ? 0 : plan.remaining[i];
                sink.status(refused ? OVER_LIMIT : OK, plan.states[i], Math.min(remaining, UINT32_MAX),
                    plan.resetNs[i]);
                final long capacity = plan.states[i].capacity();
                plan.stats[i].recordDecision(!plan.over[i] ? Result.ADMITTED :
                    plan.hits[i] > capacity ? Result.NEVER : Math.max(1, plan.resetNs[i]), shadowed);
                plan.stats[i].record(plan.hits[i], !plan.over[i], shadowed,
                    Math.max(0, capacity - plan.remaining[i]), capacity);
                if (null != plan.states[i].fields && (headerIndex < 0 || refused && !headerRefused ||
                    refused == headerRefused && remaining < headerRemaining))
                {
                    headerIndex = i;
                    headerRefused = refused;
                    headerRemaining = remaining;
                }
            }
        }
        if (over && globalShadowMode)
        {
            globalShadowCount.incrementAndGet();
            over = false;
        }
        if (RlsService.Headers.NONE != headers && headerIndex >= 0)
        {
            addHeaders(sink, plan, headerIndex);
        }
        sink.overall(over ? OVER_LIMIT : OK);
    }

    private void addHeaders(final AnswerSink sink, final Plan plan, final int i)
    {
        final RuleState state = plan.states[i];
        final long remaining = plan.over[i] ? 0 : plan.remaining[i];
        final HeaderScratch s = scratch.get();
        final Decision decision = s.decision.setOutcome(plan.over[i] ? Math.max(1, plan.resetNs[i]) : 0,
            remaining, plan.resetNs[i], state.limit.burst());
        final byte[] buffer = s.buffer(state.fields.maxValueLength());
        if (RlsService.Headers.IETF == headers)
        {
            sink.header("RateLimit-Policy", buffer, state.fields.writePolicy(buffer, 0));
            sink.header("RateLimit", buffer, state.fields.writeRateLimit(decision, buffer, 0));
        }
        else
        {
            sink.header("X-RateLimit-Limit", buffer, state.fields.writeLegacyLimit(buffer, 0));
            sink.header("X-RateLimit-Remaining", buffer, state.fields.writeLegacyRemaining(decision, buffer, 0));
            sink.header("X-RateLimit-Reset", buffer, state.fields.writeLegacyReset(decision, buffer, 0));
        }
    }

    /** A thread's reused decision holder and header buffer. */
    private static final class HeaderScratch
    {
        final Decision decision = new Decision();
        private byte[] buffer = new byte[64];

        byte[] buffer(final int length)
        {
            if (buffer.length < length)
            {
                buffer = new byte[length];
            }
            return buffer;
        }
    }

    /** The response as a protobuf message. */
    static final class Message implements AnswerSink
    {
        final RateLimitResponse.Builder response = RateLimitResponse.newBuilder();

        public void status(final int code, final RuleState state, final long remaining, final long resetNs)
        {
            final RateLimitResponse.DescriptorStatus.Builder status = RateLimitResponse.DescriptorStatus.newBuilder()
                .setCodeValue(code);
            if (null != state)
            {
                status.setCurrentLimit(state.currentLimit);
            }
            status.setLimitRemaining((int)remaining);
            if (AnswerSink.NONE != resetNs)
            {
                status.setDurationUntilReset(Duration.newBuilder().setSeconds(resetNs / 1_000_000_000L)
                    .setNanos((int)(resetNs % 1_000_000_000L)));
            }
            response.addStatuses(status);
        }

        public void header(final String name, final byte[] value, final int length)
        {
            response.addResponseHeadersToAdd(HeaderValue.newBuilder().setKey(name)
                .setValue(new String(value, 0, length, StandardCharsets.US_ASCII)));
        }

        public void overall(final int code)
        {
            response.setOverallCodeValue(code);
        }
    }
}
