package dev.cellrate.netty;

import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Limit;
import dev.cellrate.http.RateLimitFields;
import dev.cellrate.KeyedShaper;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The immutable, shareable configuration of {@link HttpRateLimitHandler}: one limiter, one key extractor,
 * one mode, the responses (built once) and counters. Create one per route or policy; add
 * {@code new HttpRateLimitHandler(config)} to each channel's pipeline after {@code HttpServerCodec} and
 * {@code HttpServerKeepAliveHandler} (or to each HTTP/2 stream channel after
 * {@code Http2StreamFrameToHttpObjectCodec}).
 * <p>
 * Modes:
 * <ul>
 *     <li>{@link Mode#ENFORCE}: a {@link KeyedRateLimiter} decides; a rejected request gets the reject
 *     status (429 by default) with {@code Retry-After} and the {@code RateLimit} fields.</li>
 *     <li>{@link Mode#DRY_RUN}: decide and count, never reject; responses to would-be rejections carry
 *     {@code x-ratelimit-dry-run: would-reject}.</li>
 *     <li>{@link Mode#SHAPE}: a {@link KeyedShaper} decides; an admitted request waits on the channel's event
 *     loop until its release time if that is at most {@code maxDelayNs} away, else it is refused (and its
 *     reservation refunded).</li>
 *     <li>{@link Mode#CHARGE_AFTER}: requests are refused up front only while their key is in debt
 *     ({@code peek}); responses are charged after the fact ({@code debit}): one permit per response whose
 *     status is listed, or the cost read from a response header.</li>
 * </ul>
 */
public final class HttpRateLimit
{
    /** The handler's modes. */
    public enum Mode
    {
        /** Reject what the limiter rejects. */
        ENFORCE,
        /** Decide and count, never reject; mark would-be rejections. */
        DRY_RUN,
        /** Delay admitted requests up to a bound on the event loop, reject the rest. */
        SHAPE,
        /** Charge responses after the fact; refuse only keys in debt. */
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
    final KeyedRateLimiter limiter;
    final KeyedShaper shaper;
    final long maxDelayNs;
    final DebtLimiter debt;
    final boolean[] chargedStatus;
    final AsciiString costHeader;
    final KeyExtractor keyExtractor;
    final byte[] fallbackKey;
    final RateLimitFields fields;
    final AsciiString policyValue;
    final AsciiString legacyLimitValue;
    final boolean headersOnAdmitted;
    final boolean legacyHeaders;
    final NanoClock clock;
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
        this.shaper = b.shaper;
        this.maxDelayNs = b.maxDelayNs;
        this.debt = b.debt;
        this.chargedStatus = b.chargedStatus.clone();
        this.costHeader = b.costHeader;
        this.keyExtractor = b.keyExtractor;
        this.fallbackKey = b.fallbackKey;
        this.headersOnAdmitted = b.headersOnAdmitted;
        this.legacyHeaders = b.legacyHeaders;
        this.clock = b.clock;
        final Limit limit = null != limiter ? limiter.limit() : null != shaper ? shaper.limit() : debt.limit();
        this.fields = new RateLimitFields(b.policyName, limit);
        final byte[] v = new byte[fields.maxValueLength()];
        this.policyValue = new AsciiString(v, 0, fields.writePolicy(v, 0), true);
        this.legacyLimitValue = new AsciiString(v, 0, fields.writeLegacyLimit(v, 0), true);
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
     * @param limiter the keyed limiter (one permit per request).
     * @return a builder in {@link Mode#ENFORCE}.
     */
    public static Builder enforce(final KeyedRateLimiter limiter)
    {
        return new Builder(Mode.ENFORCE).limiter(limiter);
    }

    /**
     * @param limiter the keyed limiter (one permit per request).
     * @return a builder in {@link Mode#DRY_RUN}.
     */
    public static Builder dryRun(final KeyedRateLimiter limiter)
    {
        return new Builder(Mode.DRY_RUN).limiter(limiter);
    }

    /**
     * @param shaper     the keyed shaper.
     * @param maxDelayNs the longest a request may wait, in [0, 1 hour].
     * @return a builder in {@link Mode#SHAPE}.
     */
    public static Builder shape(final KeyedShaper shaper, final long maxDelayNs)
    {
        if (null == shaper)
        {
            throw new IllegalArgumentException("shaper must not be null");
        }
        dev.cellrate.check.Bounds.requireRange("maxDelayNs", maxDelayNs, 0, TimeUnit.HOURS.toNanos(1));
        final Builder b = new Builder(Mode.SHAPE);
        b.shaper = shaper;
        b.maxDelayNs = maxDelayNs;
        return b;
    }

    /**
     * @param debt the debt limiter.
     * @return a builder in {@link Mode#CHARGE_AFTER}; name the charged statuses or the cost header.
     */
    public static Builder chargeAfter(final DebtLimiter debt)
    {
        if (null == debt)
        {
            throw new IllegalArgumentException("debt must not be null");
        }
        final Builder b = new Builder(Mode.CHARGE_AFTER);
        b.debt = debt;
        return b;
    }

    /**
     * @return the mode.
     */
    public Mode mode()
    {
        return mode;
    }

    /**
     * @return the field formatter (policy name and limit).
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
     * @return requests answered by the handler (rate limit, shaping bound, or 400 for no key).
     */
    public long rejectedCount()
    {
        return rejected.sum();
    }

    /**
     * @return dry-run decisions that would have rejected.
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
        private KeyedRateLimiter limiter;
        private KeyedShaper shaper;
        private long maxDelayNs;
        private DebtLimiter debt;
        private final boolean[] chargedStatus = new boolean[600];
        private AsciiString costHeader;
        private KeyExtractor keyExtractor = ClientAddressKey.perClient();
        private byte[] fallbackKey = "cellrate:no-key".getBytes(StandardCharsets.US_ASCII);
        private String policyName = "default";
        private HttpResponseStatus rejectStatus = HttpResponseStatus.TOO_MANY_REQUESTS;
        private boolean headersOnAdmitted;
        private boolean legacyHeaders;
        private NanoClock clock = SystemNanoClock.INSTANCE;

        private Builder(final Mode mode)
        {
            this.mode = mode;
        }

        private Builder limiter(final KeyedRateLimiter limiter)
        {
            if (null == limiter)
            {
                throw new IllegalArgumentException("limiter must not be null");
            }
            this.limiter = limiter;
            return this;
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
         * @param name the policy identifier in the {@code RateLimit} fields (default {@code "default"}).
         * @return this.
         */
        public Builder policyName(final String name)
        {
            this.policyName = name; // validated by RateLimitFields at build()
            return this;
        }

        /**
         * @param code the status of a rate-limit rejection, in [400, 599] (default 429).
         * @return this.
         */
        public Builder rejectStatus(final int code)
        {
            dev.cellrate.check.Bounds.requireRange("rejectStatus", code, 400, 599);
            this.rejectStatus = HttpResponseStatus.valueOf(code);
            return this;
        }

        /**
         * @param on also put {@code RateLimit-Policy} and {@code RateLimit} on admitted responses.
         * @return this.
         */
        public Builder headersOnAdmitted(final boolean on)
        {
            this.headersOnAdmitted = on;
            return this;
        }

        /**
         * @param on also write {@code X-RateLimit-Limit}, {@code -Remaining}, {@code -Reset} (delta seconds).
         * @return this.
         */
        public Builder legacyHeaders(final boolean on)
        {
            this.legacyHeaders = on;
            return this;
        }

        /**
         * @param clock the time source (default {@link SystemNanoClock}); read once per request.
         * @return this.
         */
        public Builder clock(final NanoClock clock)
        {
            if (null == clock)
            {
                throw new IllegalArgumentException("clock must not be null");
            }
            this.clock = clock;
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
                dev.cellrate.check.Bounds.requireRange("chargeStatuses[]", s, 100, 599);
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
            if (Mode.CHARGE_AFTER == mode && null == costHeader)
            {
                boolean any = false;
                for (final boolean s : chargedStatus)
                {
                    any |= s;
                }
                if (!any)
                {
                    throw new IllegalArgumentException("chargeAfter needs chargeStatuses or chargeCostHeader");
                }
            }
            return new HttpRateLimit(this);
        }
    }
}
