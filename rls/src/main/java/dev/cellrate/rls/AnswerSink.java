package dev.cellrate.rls;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;

/**
 * Where {@link Answers} writes one response: the statuses in descriptor order, then the headers, then the overall
 * code. Two forms: protobuf's {@link RateLimitResponse} ({@link Answers.Message}, for {@code /json} and
 * in-process callers) and its wire bytes written directly ({@link WireAnswer}, for the gRPC call); both carry the
 * same fields, so a client reads the same message.
 */
interface AnswerSink
{
    /** Nothing of a status beyond its code. */
    long NONE = -1;

    /**
     * One descriptor's status.
     *
     * @param code        {@link RateLimitResponse.Code#OK_VALUE} or {@link RateLimitResponse.Code#OVER_LIMIT_VALUE}.
     * @param state       the rule state whose {@code current_limit} the status carries, or null for none.
     * @param remaining   {@code limit_remaining}, a uint32 (0 is not written, as protobuf omits it).
     * @param resetNs     {@code duration_until_reset} in ns, or {@link #NONE} for no duration.
     */
    void status(int code, RuleState state, long remaining, long resetNs);

    /**
     * One response header ({@code response_headers_to_add}).
     *
     * @param name   its name (ASCII).
     * @param value  a buffer holding its value (ASCII).
     * @param length the value's length.
     */
    void header(String name, byte[] value, int length);

    /**
     * The overall code, last.
     *
     * @param code {@link RateLimitResponse.Code#OK_VALUE} or {@link RateLimitResponse.Code#OVER_LIMIT_VALUE}.
     */
    void overall(int code);
}
