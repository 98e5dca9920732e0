package dev.cellrate.netty;

import dev.cellrate.Decision;
import dev.cellrate.http.RateLimitFields;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.AsciiString;

/**
 * The rate-limit fields a handler writes: the rejections it answers ({@code Retry-After}, gRPC's pushback,
 * {@code RateLimit-Policy}, {@code RateLimit} and the legacy {@code X-RateLimit-*}) and the same fields on
 * admitted responses when the configuration asks for them. Values are formatted into one reused buffer; each
 * header value is a copy of it.
 * <p>
 * Threading: one per handler, the channel's event loop.
 */
final class RateLimitHeaders
{
    private final HttpRateLimit config;
    private final byte[] value;

    RateLimitHeaders(final HttpRateLimit config)
    {
        this.config = config;
        this.value = new byte[config.valueLength];
    }

    /**
     * @param kind     {@link OwedResponses#REJECT}, {@link OwedResponses#REJECT_GRPC} or
     *                 {@link OwedResponses#BAD_REQUEST}.
     * @param decision the refusing decision.
     * @return the response to write (a duplicate of the configuration's template, with its fields).
     */
    FullHttpResponse rejection(final byte kind, final Decision decision)
    {
        if (OwedResponses.BAD_REQUEST == kind)
        {
            return config.badRequestTemplate.retainedDuplicate();
        }
        final boolean grpc = OwedResponses.REJECT_GRPC == kind;
        final FullHttpResponse response = (grpc ? config.grpcTemplate : config.rejectTemplate).retainedDuplicate();
        final HttpHeaders headers = response.headers();
        final long retryNs = decision.retryAfterNs();
        if (Long.MAX_VALUE != retryNs && retryNs > 0)
        {
            headers.set(HttpHeaderNames.RETRY_AFTER, ascii(RateLimitFields.writeDelaySeconds(retryNs, value, 0)));
            if (grpc)
            {
                headers.set(HttpRateLimit.GRPC_RETRY_PUSHBACK_MS,
                    ascii(RateLimitFields.writeLong((retryNs - 1) / 1_000_000 + 1, value, 0)));
            }
        }
        if (null != config.policyValue)
        {
            headers.set(HttpRateLimit.RATELIMIT_POLICY, config.policyValue);
        }
        if (HttpRateLimit.Mode.ENFORCE == config.mode)
        {
            decisionFields(headers, decision);
        }
        return response;
    }

    /** The policy and, when enforcing, the decision's fields on an admitted response. */
    void admitted(final HttpHeaders headers, final Decision decision)
    {
        if (null != config.policyValue)
        {
            headers.set(HttpRateLimit.RATELIMIT_POLICY, config.policyValue);
        }
        if (HttpRateLimit.Mode.ENFORCE == config.mode)
        {
            decisionFields(headers, decision);
        }
    }

    /** The {@code RateLimit} field (with a policy) and the legacy fields (if on) of a front's decision. */
    private void decisionFields(final HttpHeaders headers, final Decision decision)
    {
        final RateLimitFields fields = config.fields;
        if (null != fields)
        {
            headers.set(HttpRateLimit.RATELIMIT, ascii(fields.writeRateLimit(decision, value, 0)));
        }
        if (config.legacyHeaders)
        {
            headers.set(HttpRateLimit.X_RATELIMIT_LIMIT, ascii(RateLimitFields.writeLong(decision.limit(), value, 0)));
            headers.set(HttpRateLimit.X_RATELIMIT_REMAINING,
                ascii(RateLimitFields.writeLong(decision.remaining(), value, 0)));
            headers.set(HttpRateLimit.X_RATELIMIT_RESET,
                ascii(RateLimitFields.writeDelaySeconds(decision.resetAfterNs(), value, 0)));
        }
    }

    private AsciiString ascii(final int length)
    {
        return new AsciiString(value, 0, length, true);
    }

    /** @return whether the request is gRPC (its content type starts with {@code application/grpc}). */
    static boolean isGrpc(final HttpRequest request)
    {
        final String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE);
        return null != contentType && contentType.regionMatches(true, 0, "application/grpc", 0, 16);
    }

    /**
     * @param v a response's cost field.
     * @return its value: up to 18 decimal digits; 1 when it is absent, empty, longer or not all digits.
     */
    static long parseCost(final String v)
    {
        if (null == v || v.isEmpty() || v.length() > 18)
        {
            return 1;
        }
        long cost = 0;
        for (int i = 0; i < v.length(); i++)
        {
            final char c = v.charAt(i);
            if (c < '0' || c > '9')
            {
                return 1;
            }
            cost = cost * 10 + (c - '0');
        }
        return cost;
    }
}
