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
 * Builds the response of a decided {@link Plan}: one status per descriptor (OK without a rule; OK with the
 * largest remaining when unlimited; else the rule's limit, remaining and time to reset, OVER_LIMIT when refused
 * and not in shadow mode), the overall code (OVER_LIMIT iff a status is, unless the global shadow mode), the
 * statistics of every descriptor, and the headers of the descriptor that refused first, else of the one with
 * the fewest remaining.
 */
final class Answers
{
    private static final long UINT32_MAX = 0xFFFF_FFFFL;

    private final boolean globalShadowMode;
    private final RlsService.Headers headers;
    private final AtomicLong globalShadowCount = new AtomicLong();

    Answers(final boolean globalShadowMode, final RlsService.Headers headers)
    {
        this.globalShadowMode = globalShadowMode;
        this.headers = headers;
    }

    long globalShadowCount()
    {
        return globalShadowCount.get();
    }

    RateLimitResponse respond(final Plan plan)
    {
        final RateLimitResponse.Builder response = RateLimitResponse.newBuilder();
        boolean over = false;
        int headerIndex = -1; // the descriptor whose headers are sent: the first refused, else the fewest remaining
        boolean headerRefused = false;
        long headerRemaining = Long.MAX_VALUE;
        for (int i = 0; i < plan.count; i++)
        {
            final RateLimitResponse.DescriptorStatus.Builder status = RateLimitResponse.DescriptorStatus.newBuilder();
            final RateLimitRule rule = plan.rules[i];
            if (null == rule)
            {
                status.setCode(RateLimitResponse.Code.OK);
            }
            else if (plan.unlimited[i])
            {
                status.setCode(RateLimitResponse.Code.OK).setLimitRemaining((int)UINT32_MAX);
                plan.stats[i].totalHits.add(plan.hits[i]);
                plan.stats[i].recordDecision(Result.ADMITTED, false);
            }
            else if (plan.refund[i])
            {
                // a refund: answered OK with what is left after it; not counted as hits
                status.setCode(RateLimitResponse.Code.OK).setCurrentLimit(plan.states[i].currentLimit)
                    .setLimitRemaining((int)Math.min(plan.remaining[i], UINT32_MAX))
                    .setDurationUntilReset(duration(plan.resetNs[i]));
            }
            else
            {
                final boolean shadowed = plan.over[i] && rule.shadowMode();
                final boolean refused = plan.over[i] && !shadowed;
                over |= refused;
                final long remaining = plan.over[i] ? 0 : plan.remaining[i];
                status.setCode(refused ? RateLimitResponse.Code.OVER_LIMIT : RateLimitResponse.Code.OK)
                    .setCurrentLimit(plan.states[i].currentLimit)
                    .setLimitRemaining((int)Math.min(remaining, UINT32_MAX))
                    .setDurationUntilReset(duration(plan.resetNs[i]));
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
            response.addStatuses(status);
        }
        if (over && globalShadowMode)
        {
            globalShadowCount.incrementAndGet();
            over = false;
        }
        response.setOverallCode(over ? RateLimitResponse.Code.OVER_LIMIT : RateLimitResponse.Code.OK);
        if (RlsService.Headers.NONE != headers && headerIndex >= 0)
        {
            addHeaders(response, plan, headerIndex);
        }
        return response.build();
    }

    private void addHeaders(final RateLimitResponse.Builder response, final Plan plan, final int i)
    {
        final RuleState state = plan.states[i];
        final long remaining = plan.over[i] ? 0 : plan.remaining[i];
        final Decision decision = new Decision().setOutcome(plan.over[i] ? Math.max(1, plan.resetNs[i]) : 0,
            remaining, plan.resetNs[i], state.limit.burst());
        final byte[] buffer = new byte[state.fields.maxValueLength()];
        if (RlsService.Headers.IETF == headers)
        {
            response.addResponseHeadersToAdd(header("RateLimit-Policy", buffer, state.fields.writePolicy(buffer, 0)));
            response.addResponseHeadersToAdd(header("RateLimit", buffer, state.fields.writeRateLimit(decision, buffer, 0)));
        }
        else
        {
            response.addResponseHeadersToAdd(header("X-RateLimit-Limit", buffer, state.fields.writeLegacyLimit(buffer, 0)));
            response.addResponseHeadersToAdd(
                header("X-RateLimit-Remaining", buffer, state.fields.writeLegacyRemaining(decision, buffer, 0)));
            response.addResponseHeadersToAdd(
                header("X-RateLimit-Reset", buffer, state.fields.writeLegacyReset(decision, buffer, 0)));
        }
    }

    private static HeaderValue header(final String name, final byte[] buffer, final int length)
    {
        return HeaderValue.newBuilder().setKey(name)
            .setValue(new String(buffer, 0, length, StandardCharsets.US_ASCII)).build();
    }

    private static Duration duration(final long ns)
    {
        return Duration.newBuilder().setSeconds(ns / 1_000_000_000L).setNanos((int)(ns % 1_000_000_000L)).build();
    }
}
