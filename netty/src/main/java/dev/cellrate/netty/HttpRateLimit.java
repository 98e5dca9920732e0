package dev.cellrate.netty;

import dev.cellrate.Decision;
import dev.cellrate.KeyedDebitLimiter;
import dev.cellrate.KeyedLimiter;
import dev.cellrate.KeyedReserver;
import dev.cellrate.Limit;
import dev.cellrate.Result;
import dev.cellrate.http.RateLimitFields;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.LongAdder;

/**
 * The immutable, shareable configuration of {@link HttpRateLimitHandler}: one keyed front, one key extractor,
 * the responses (built once) and counters. Create one per route or policy; add
 * {@code new HttpRateLimitHandler(config)} to each channel's pipeline after {@code HttpServerCodec} and
 * {@code HttpServerKeepAliveHandler} (or to each HTTP/2 stream channel after
 * {@code Http2StreamFrameToHttpObjectCodec}).
 * <p>
 * The handler takes any front of the engine's three keyed contracts; what the front is decides how requests
 * are treated (a classed, observed, reconfigurable or Redis-backed front is used as it is):
 * <ul>
 *     <li>{@link #enforce(KeyedLimiter)}: one {@code tryAcquire} per request, by the front's clock, with a
 *     {@link Decision} the front fills. A rejected request gets the reject status (429 by default) with
 *     {@code Retry-After} and, with a {@linkplain Builder#policy policy}, the {@code RateLimit} fields. A
 *     front in dry-run (an {@code ObservedKeyedLimiter.dryRun}) answers {@link Result#WOULD_HAVE_REJECTED}:
 *     the request goes on and its response carries {@code x-ratelimit-dry-run: would-reject}.</li>
 *     <li>{@link #shape(KeyedReserver)}: one {@code reserve} per request; an admitted request waits on the
 *     channel's event loop until its release time (the front bounds the delay: a shaper's tolerance), a
 *     rejected one is answered with {@code Retry-After}.</li>
 *     <li>{@link #chargeAfter(KeyedDebitLimiter)}: a request is refused up front only while its key is in
 *     debt ({@code peek} of one permit); responses are charged after the fact ({@code debit}): one permit per
 *     response whose status is listed, or the cost read from a response header.</li>
 * </ul>
 */
public final class HttpRateLimit
{
    /** How the handler uses its front. */
    public enum Mode
    {
        /** A {@link KeyedLimiter} decides each request. */
        ENFORCE,
        /** A {@link KeyedReserver} delays or refuses each request. */
        SHAPE,
        /** A {@link KeyedDebitLimiter} refuses keys in debt and is charged by the responses. */
        CHARGE_AFTER
    }

    static final AsciiString RATELIMIT_POLICY = AsciiString.cached("ratelimit-policy");
    static final AsciiString RATELIMIT = AsciiString.cached("ratelimit");
    static final AsciiString X_RATELIMIT_LIMIT = AsciiString.cached("x-ratelimit-limit");
    static final AsciiString X_RATELIMIT_REMAINING = AsciiString.cached("x-ratelimit-remaining");
    static final AsciiString X_RATELIMIT_RESET = AsciiString.cached("x-ratelimit-reset");
    static final AsciiString X_RATELIMIT_DRY_RUN = AsciiString.cached("x-ratelimit-dry-run");
    static final AsciiString WOULD_REJECT = AsciiString.cached("would-reject");
    static final AsciiString GRPC_STATUS = AsciiString.cached("grpc-status");
    static final AsciiString GRPC_MESSAGE = AsciiString.cached("grpc-message");
    static final AsciiString GRPC_RETRY_PUSHBACK_MS = AsciiString.cached("grpc-retry-pushback-ms");
    static final AsciiString APPLICATION_GRPC = AsciiString.cached("application/grpc");
    /** gRPC RESOURCE_EXHAUSTED. */
    static final AsciiString GRPC_RESOURCE_EXHAUSTED = AsciiString.cached("8");

    final Mode mode;
    final KeyedLimiter limiter;
    final KeyedReserver reserver;
    final KeyedDebitLimiter debit;
    final boolean[] chargedStatus;
    final AsciiString costHeader;
    final KeyExtractor keyExtractor;
    final byte[] fallbackKey;
    final RateLimitFields fields;
    final AsciiString policyValue;
    final int valueLength;
    final boolean headersOnAdmitted;
    final boolean legacyHeaders;
    final FullHttpResponse rejectTemplate;
    final FullHttpResponse badRequestTemplate;
    final FullHttpResponse grpcTemplate;

    final LongAdder admitted = new LongAdder(); // striped under contention: event loops do not fight over one line
    final LongAdder rejected = new LongAdder(); // striped under contention: event loops do not fight over one line
    final LongAdder wouldReject = new LongAdder(); // striped under contention: event loops do not fight over one line
    final LongAdder noKey = new LongAdder(); // striped under contention: event loops do not fight over one line

    private HttpRateLimit(final Builder b)
    {
        this.mode = b.mode;
        this.limiter = b.limiter;
        this.reserver = b.reserver;
        this.debit = b.debit;
        this.chargedStatus = b.chargedStatus.clone();
        this.costHeader = b.costHeader;
        this.keyExtractor = b.keyExtractor;
        this.fallbackKey = b.fallbackKey;
        this.headersOnAdmitted = b.headersOnAdmitted;
        this.legacyHeaders = b.legacyHeaders;
        if (null != b.policyLimit)
        {
            this.fields = new RateLimitFields(b.policyName, b.policyLimit);
            final byte[] v = new byte[fields.maxValueLength()];
            this.policyValue = new AsciiString(v, 0, fields.writePolicy(v, 0), true);
        }
        else
        {
            this.fields = null;
            this.policyValue = null;
        }
        this.valueLength = Math.max(RateLimitFields.MAX_LONG_DIGITS + 1, null == fields ? 0 : fields.maxValueLength());
        this.rejectTemplate = template(b.rejectStatus, "Too Many Requests\n");
        this.badRequestTemplate = template(HttpResponseStatus.BAD_REQUEST, "Bad Request: no rate-limit key\n");
        final FullHttpResponse grpc = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
            Unpooled.EMPTY_BUFFER);
        grpc.headers().set(HttpHeaderNames.CONTENT_TYPE, APPLICATION_GRPC)
            .set(GRPC_STATUS, GRPC_RESOURCE_EXHAUSTED)
            .set(GRPC_MESSAGE, AsciiString.cached("rate limited"))
            .setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        this.grpcTemplate = grpc;
    }

    private static FullHttpResponse template(final HttpResponseStatus status, final String body)
    {
        final byte[] bytes = body.getBytes(StandardCharsets.US_ASCII);
        final FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
            Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(bytes)));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
            .setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        return r;
    }

    /**
     * @param limiter any keyed limiter (plain, classed, observed, reconfigurable, Redis-backed); one permit per
     *                request, by its own clock.
     * @return a builder in {@link Mode#ENFORCE}.
     * @throws IllegalArgumentException if {@code limiter} is null.
     */
    public static Builder enforce(final KeyedLimiter limiter)
    {
        requireFront("limiter", limiter);
        final Builder b = new Builder(Mode.ENFORCE);
        b.limiter = limiter;
        return b;
    }

    /**
     * @param reserver any keyed reserver (a keyed shaper, observed or not); one permit per request, by its own
     *                 clock. It bounds the delay itself.
     * @return a builder in {@link Mode#SHAPE}.
     * @throws IllegalArgumentException if {@code reserver} is null.
     */
    public static Builder shape(final KeyedReserver reserver)
    {
        requireFront("reserver", reserver);
        final Builder b = new Builder(Mode.SHAPE);
        b.reserver = reserver;
        return b;
    }

    /**
     * @param debit a keyed limiter that can peek and debit; its clock times both.
     * @return a builder in {@link Mode#CHARGE_AFTER}; name the charged statuses or the cost header.
     * @throws IllegalArgumentException if {@code debit} is null.
     */
    public static Builder chargeAfter(final KeyedDebitLimiter debit)
    {
        requireFront("debit", debit);
        final Builder b = new Builder(Mode.CHARGE_AFTER);
        b.debit = debit;
        return b;
    }

    static void requireRange(final String name, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "] but was " + value);
        }
    }

    private static void requireFront(final String name, final Object front)
    {
        if (null == front)
        {
            throw new IllegalArgumentException(name + " must not be null");
        }
    }

    /**
     * @return the mode.
     */
    public Mode mode()
    {
        return mode;
    }

    /**
     * @return the field formatter of the configured policy, or null when no policy was given.
     */
    public RateLimitFields fields()
    {
        return fields;
    }

    /**
     * @return requests passed on (including dry-run would-be rejections).
     */
    public long admittedCount()
    {
        return admitted.sum();
    }

    /**
     * @return requests answered by the handler (rate limit, or 400 for no key).
     */
    public long rejectedCount()
    {
        return rejected.sum();
    }

    /**
     * @return requests passed on that the front would have rejected ({@link Result#WOULD_HAVE_REJECTED}).
     */
    public long wouldRejectCount()
    {
        return wouldReject.sum();
    }

    /**
     * @return requests with no usable key (fallback applied).
     */
    public long noKeyCount()
    {
        return noKey.sum();
    }

    /** Builds an {@link HttpRateLimit}; every setter validates its argument. */
    public static final class Builder
    {
        private final Mode mode;
        private KeyedLimiter limiter;
        private KeyedReserver reserver;
        private KeyedDebitLimiter debit;
        private final boolean[] chargedStatus = new boolean[600];
        private AsciiString costHeader;
        private KeyExtractor keyExtractor = ClientAddressKey.perClient();
        private byte[] fallbackKey = "cellrate:no-key".getBytes(StandardCharsets.US_ASCII);
        private String policyName;
        private Limit policyLimit;
        private HttpResponseStatus rejectStatus = HttpResponseStatus.TOO_MANY_REQUESTS;
        private boolean headersOnAdmitted;
        private boolean legacyHeaders;

        private Builder(final Mode mode)
        {
            this.mode = mode;
        }

        /**
         * @param keyExtractor how a request's key is found (default: {@link ClientAddressKey#perClient()}).
         * @return this.
         */
        public Builder keyExtractor(final KeyExtractor keyExtractor)
        {
            if (null == keyExtractor)
            {
                throw new IllegalArgumentException("keyExtractor must not be null");
            }
            this.keyExtractor = keyExtractor;
            return this;
        }

        /**
         * Requests with no usable key share this key (the default, {@code "cellrate:no-key"}).
         *
         * @param key the shared key, 1..{@link KeyExtractor#MAX_KEY_LENGTH} ASCII characters.
         * @return this.
         */
        public Builder fallbackSharedKey(final String key)
        {
            if (null == key || key.isEmpty() || key.length() > KeyExtractor.MAX_KEY_LENGTH)
            {
                throw new IllegalArgumentException(
                    "fallback key must be 1.." + KeyExtractor.MAX_KEY_LENGTH + " characters but was " + key);
            }
            this.fallbackKey = key.getBytes(StandardCharsets.US_ASCII);
            return this;
        }

        /**
         * Requests with no usable key are answered 400.
         *
         * @return this.
         */
        public Builder fallbackBadRequest()
        {
            this.fallbackKey = null;
            return this;
        }

        /**
         * Advertise a policy: {@code RateLimit-Policy} and, for an {@link #enforce} front, the {@code RateLimit}
         * field from each request's {@link Decision} (formatted by {@link RateLimitFields}). Without a policy,
         * responses carry {@code Retry-After} (and the legacy fields, if on) only: a classed or reconfigurable
         * front has no single limit to advertise unless the caller names one.
         *
         * @param name  the policy identifier, 1..{@link RateLimitFields#MAX_NAME_LENGTH} printable ASCII.
         * @param limit the limit the policy advertises.
         * @return this.
         * @throws IllegalArgumentException naming the bad field.
         */
        public Builder policy(final String name, final Limit limit)
        {
            new RateLimitFields(name, limit); // validates both now, with the engine's messages
            this.policyName = name;
            this.policyLimit = limit;
            return this;
        }

        /**
         * @param code the status of a rate-limit rejection, in [400, 599] (default 429).
         * @return this.
         */
        public Builder rejectStatus(final int code)
        {
            requireRange("rejectStatus", code, 400, 599);
            this.rejectStatus = HttpResponseStatus.valueOf(code);
            return this;
        }

        /**
         * @param on also put the fields on admitted responses ({@link Mode#ENFORCE}: the request's
         *           {@link Decision}; the other modes have no decision to show on an admission).
         * @return this.
         */
        public Builder headersOnAdmitted(final boolean on)
        {
            this.headersOnAdmitted = on;
            return this;
        }

        /**
         * @param on also write {@code X-RateLimit-Limit}, {@code -Remaining}, {@code -Reset} (delta seconds) from
         *           the request's {@link Decision} ({@link Mode#ENFORCE} only).
         * @return this.
         */
        public Builder legacyHeaders(final boolean on)
        {
            this.legacyHeaders = on;
            return this;
        }

        /**
         * {@link Mode#CHARGE_AFTER}: charge one permit per response with one of these statuses.
         *
         * @param statuses statuses in [100, 599].
         * @return this.
         */
        public Builder chargeStatuses(final int... statuses)
        {
            for (final int s : statuses)
            {
                requireRange("chargeStatuses[]", s, 100, 599);
                chargedStatus[s] = true;
            }
            return this;
        }

        /**
         * {@link Mode#CHARGE_AFTER}: charge the decimal cost in this response header (absent or malformed: 1).
         *
         * @param name the header name.
         * @return this.
         */
        public Builder chargeCostHeader(final String name)
        {
            if (null == name || name.isEmpty())
            {
                throw new IllegalArgumentException("chargeCostHeader must not be empty");
            }
            this.costHeader = AsciiString.cached(name.toLowerCase(java.util.Locale.ROOT));
            return this;
        }

        /**
         * @return the configuration.
         * @throws IllegalArgumentException on an inconsistent configuration.
         */
        public HttpRateLimit build()
        {
            if (Mode.CHARGE_AFTER != mode && (null != costHeader || anyCharged()))
            {
                throw new IllegalArgumentException("chargeStatuses and chargeCostHeader are for chargeAfter only");
            }
            if (Mode.CHARGE_AFTER == mode && null == costHeader && !anyCharged())
            {
                throw new IllegalArgumentException("chargeAfter needs chargeStatuses or chargeCostHeader");
            }
            return new HttpRateLimit(this);
        }

        private boolean anyCharged()
        {
            for (final boolean s : chargedStatus)
            {
                if (s)
                {
                    return true;
                }
            }
            return false;
        }
    }
}
