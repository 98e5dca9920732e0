package dev.cellrate.netty;

import dev.cellrate.Decision;
import dev.cellrate.KeyedRateLimiter;
import dev.cellrate.Result;
import dev.cellrate.http.RateLimitFields;
import dev.cellrate.Reservation;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Limits HTTP requests in a Netty pipeline: one decision per request (see {@link HttpRateLimit} for the
 * modes). One instance per channel (it keeps per-connection state); the {@link HttpRateLimit} it reads is
 * shared.
 * <p>
 * <b>Order.</b> Admitted requests go on untouched. A rejected request is answered by this handler; its body
 * is released as it arrives and the connection is kept. HTTP/1.1 pipelining (RFC 9112 &sect;9.3.2): a
 * rejection is queued behind the responses still owed to earlier admitted requests and written right after
 * the last of them, so responses leave in request order. At most {@link #MAX_OUTSTANDING} requests may be
 * owed a response on one connection; a client that pipelines further is disconnected.
 * <p>
 * <b>Cost.</b> An admitted request costs a clock read, a key extraction (allocation-free, see
 * {@link KeyExtractor}) and one engine decision; with no headers on admitted responses nothing is
 * allocated. A rejection allocates what Netty needs to send it (a duplicate of the template response and
 * the header value strings). Bad input never throws: no key means the configured fallback.
 * <p>
 * Threading: every method runs on the channel's event loop.
 */
public final class HttpRateLimitHandler extends ChannelDuplexHandler
{
    /** Most requests on one connection that may be owed a response at once. */
    public static final int MAX_OUTSTANDING = 16;

    private static final int MASK = MAX_OUTSTANDING - 1;
    private static final byte PASS = 1;
    private static final byte PASS_WOULD_REJECT = 2;
    private static final byte REJECT = 3;
    private static final byte REJECT_GRPC = 4;
    private static final byte BAD_REQUEST = 5;

    private final HttpRateLimit config;
    private final byte[] key = new byte[KeyExtractor.MAX_KEY_LENGTH];
    private final byte[] value;
    private final Decision decision = new Decision();
    private final Reservation reservation = new Reservation();

    private final byte[] kinds = new byte[MAX_OUTSTANDING];
    private final long[] retryAfterNs = new long[MAX_OUTSTANDING];
    private final long[] remaining = new long[MAX_OUTSTANDING];
    private final long[] resetAfterNs = new long[MAX_OUTSTANDING];
    private final byte[] keys;
    private final int[] keyLengths;
    private int head;
    private int tail;

    private boolean discarding;
    private boolean responseStarted;
    private ArrayDeque<Object> held;
    private boolean holding;
    private ScheduledFuture<?> releaseFuture;
    private ChannelHandlerContext ctx;
    private final Runnable release = this::release;

    /**
     * @param config the shared configuration.
     */
    public HttpRateLimitHandler(final HttpRateLimit config)
    {
        if (null == config)
        {
            throw new IllegalArgumentException("config must not be null");
        }
        this.config = config;
        this.value = new byte[config.fields.maxValueLength()];
        final boolean keepKeys = HttpRateLimit.Mode.CHARGE_AFTER == config.mode;
        this.keys = keepKeys ? new byte[MAX_OUTSTANDING * KeyExtractor.MAX_KEY_LENGTH] : null;
        this.keyLengths = keepKeys ? new int[MAX_OUTSTANDING] : null;
    }

    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
    }

    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (holding)
        {
            held.addLast(msg);
            return;
        }
        handleRead(ctx, msg);
    }

    private void handleRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (msg instanceof HttpRequest)
        {
            discarding = false;
            onRequest(ctx, (HttpRequest)msg);
        }
        else if (discarding)
        {
            if (msg instanceof LastHttpContent)
            {
                discarding = false;
            }
            ReferenceCountUtil.release(msg);
        }
        else
        {
            ctx.fireChannelRead(msg);
        }
    }

    private void onRequest(final ChannelHandlerContext ctx, final HttpRequest request)
    {
        if (tail - head >= MAX_OUTSTANDING)
        {
            ReferenceCountUtil.release(request);
            ctx.close();
            return;
        }
        final HttpRateLimit config = this.config;
        final long nowNs = config.clock.nanoTime();
        int length = config.keyExtractor.extract(ctx.channel(), request, key);
        if (length < 0 || length > KeyExtractor.MAX_KEY_LENGTH)
        {
            config.noKey.increment();
            if (null == config.fallbackKey)
            {
                if (HttpRateLimit.Mode.DRY_RUN == config.mode)
                {
                    pass(ctx, request, PASS_WOULD_REJECT, 0, 0);
                    return;
                }
                reject(ctx, request, BAD_REQUEST, Long.MAX_VALUE, 0, 0);
                return;
            }
            length = config.fallbackKey.length;
            System.arraycopy(config.fallbackKey, 0, key, 0, length);
        }
        switch (config.mode)
        {
            case ENFORCE:
            case DRY_RUN:
                decide(ctx, request, length, nowNs);
                break;
            case SHAPE:
                shape(ctx, request, length, nowNs);
                break;
            default:
                chargeLater(ctx, request, length, nowNs);
                break;
        }
    }

    private void decide(final ChannelHandlerContext ctx, final HttpRequest request, final int length, final long nowNs)
    {
        final HttpRateLimit config = this.config;
        if (!config.headersOnAdmitted)
        {
            decideFast(ctx, request, length, nowNs);
            return;
        }
        final Decision decision = this.decision;
        final long code = config.limiter.tryAcquire(key, 0, length, 1, nowNs, decision);
        if (Result.isAdmitted(code))
        {
            pass(ctx, request, PASS, decision.remaining(), decision.resetAfterNs());
        }
        else
        {
            refuse(ctx, request, decision.retryAfterNs(), decision.remaining(), decision.resetAfterNs());
        }
    }

    /**
     * The engine's inlinable path without a {@link Decision} (no division). A rejected single permit still
     * has exact fields: retry-after {@code r = lag - &tau;} (see {@code Gcra.retryAfterNs}), so the lag (the
     * reset-after) is {@code r + &tau;} and the remaining is 0.
     */
    private void decideFast(
        final ChannelHandlerContext ctx, final HttpRequest request, final int length, final long nowNs)
    {
        final long code = config.limiter.tryAcquire(key, 0, length, 1, nowNs);
        if (Result.isAdmitted(code))
        {
            pass(ctx, request, PASS, 0, 0);
        }
        else if (code > 0)
        {
            final long toleranceNs = config.limiter.limit().toleranceNs();
            refuse(ctx, request, code, 0, code > Long.MAX_VALUE - toleranceNs ? Long.MAX_VALUE : code + toleranceNs);
        }
        else
        {
            refuse(ctx, request, Long.MAX_VALUE, 0, 0); // never conforms / table full: no Retry-After
        }
    }

    private void refuse(
        final ChannelHandlerContext ctx, final HttpRequest request, final long retryAfterNs, final long remaining,
        final long resetAfterNs)
    {
        if (HttpRateLimit.Mode.DRY_RUN == config.mode)
        {
            config.wouldReject.increment();
            pass(ctx, request, PASS_WOULD_REJECT, remaining, resetAfterNs);
        }
        else
        {
            reject(ctx, request, isGrpc(request) ? REJECT_GRPC : REJECT, retryAfterNs, remaining, resetAfterNs);
        }
    }

    private void shape(final ChannelHandlerContext ctx, final HttpRequest request, final int length, final long nowNs)
    {
        final HttpRateLimit config = this.config;
        final long keyWord = config.shaper.table().keyWord(key, 0, length);
        final long code = config.shaper.reserveKeyWord(keyWord, 1, nowNs, reservation);
        if (Result.isReserved(code) && code <= config.maxDelayNs)
        {
            if (0 == code)
            {
                pass(ctx, request, PASS, 0, 0);
                return;
            }
            push(PASS, 0, 0, 0);
            config.admitted.increment();
            hold(ctx, request, code);
            return;
        }
        final long retryNs;
        if (Result.isReserved(code))
        {
            config.shaper.cancelKeyWord(keyWord, reservation, nowNs);
            retryNs = code - config.maxDelayNs;
        }
        else
        {
            retryNs = Result.isEncodedRetryAfter(code) ? Result.decodeRetryAfterNs(code) : Long.MAX_VALUE;
        }
        reject(ctx, request, isGrpc(request) ? REJECT_GRPC : REJECT, retryNs, 0,
            Long.MAX_VALUE == retryNs ? 0 : retryNs);
    }

    private void chargeLater(
        final ChannelHandlerContext ctx, final HttpRequest request, final int length, final long nowNs)
    {
        final DebtLimiter debt = config.debt;
        final long code = debt.peek(key, 0, length, nowNs);
        if (Result.ADMITTED == code)
        {
            final int slot = tail & MASK;
            System.arraycopy(key, 0, keys, slot * KeyExtractor.MAX_KEY_LENGTH, length);
            keyLengths[slot] = length;
            pass(ctx, request, PASS, 0, 0);
        }
        else
        {
            reject(ctx, request, isGrpc(request) ? REJECT_GRPC : REJECT, code, 0,
                debt.resetAfterNs(key, 0, length, nowNs));
        }
    }

    private void pass(
        final ChannelHandlerContext ctx, final HttpRequest request, final byte kind, final long remaining,
        final long resetAfterNs)
    {
        push(kind, 0, remaining, resetAfterNs);
        config.admitted.increment();
        ctx.fireChannelRead(request);
    }

    private void reject(
        final ChannelHandlerContext ctx, final HttpRequest request, final byte kind, final long retryAfterNs,
        final long remaining, final long resetAfterNs)
    {
        config.rejected.increment();
        push(kind, retryAfterNs, remaining, resetAfterNs);
        discarding = !(request instanceof LastHttpContent);
        ReferenceCountUtil.release(request);
        if (writeRejectionsAtHead(ctx))
        {
            ctx.flush();
        }
    }

    private void push(final byte kind, final long retryNs, final long remainingPermits, final long resetNs)
    {
        final int slot = tail & MASK;
        kinds[slot] = kind;
        retryAfterNs[slot] = retryNs;
        remaining[slot] = remainingPermits;
        resetAfterNs[slot] = resetNs;
        tail++;
    }

    private static boolean isGrpc(final HttpRequest request)
    {
        final String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE);
        return null != contentType && contentType.regionMatches(true, 0, "application/grpc", 0, 16);
    }

    /**
     * Write every rejection at the head of the queue (the responses owed before them are complete).
     */
    private boolean writeRejectionsAtHead(final ChannelHandlerContext ctx)
    {
        boolean wrote = false;
        while (head != tail && kinds[head & MASK] >= REJECT)
        {
            final int slot = head & MASK;
            final byte kind = kinds[slot];
            final FullHttpResponse response;
            if (BAD_REQUEST == kind)
            {
                response = config.badRequestTemplate.retainedDuplicate();
            }
            else
            {
                response = (REJECT_GRPC == kind ? config.grpcTemplate : config.rejectTemplate).retainedDuplicate();
                rejectionHeaders(response.headers(), slot, REJECT_GRPC == kind);
            }
            head++;
            ctx.write(response);
            wrote = true;
        }
        return wrote;
    }

    private void rejectionHeaders(final HttpHeaders headers, final int slot, final boolean grpc)
    {
        final long retryNs = retryAfterNs[slot];
        if (Long.MAX_VALUE != retryNs)
        {
            headers.set(HttpHeaderNames.RETRY_AFTER, ascii(RateLimitFields.writeDelaySeconds(retryNs, value, 0)));
            if (grpc)
            {
                headers.set(HttpRateLimit.GRPC_RETRY_PUSHBACK_MS,
                    ascii(RateLimitFields.writeLong((retryNs - 1) / 1_000_000 + 1, value, 0)));
            }
        }
        rateLimitHeaders(headers, slot);
    }

    private void rateLimitHeaders(final HttpHeaders headers, final int slot)
    {
        decision.setOutcome(Result.ADMITTED, remaining[slot], resetAfterNs[slot], 0);
        final RateLimitFields fields = config.fields;
        headers.set(HttpRateLimit.RATELIMIT_POLICY, config.policyValue);
        headers.set(HttpRateLimit.RATELIMIT, ascii(fields.writeRateLimit(decision, value, 0)));
        if (config.legacyHeaders)
        {
            headers.set(HttpRateLimit.X_RATELIMIT_LIMIT, config.legacyLimitValue);
            headers.set(HttpRateLimit.X_RATELIMIT_REMAINING, ascii(fields.writeLegacyRemaining(decision, value, 0)));
            headers.set(HttpRateLimit.X_RATELIMIT_RESET, ascii(fields.writeLegacyReset(decision, value, 0)));
        }
    }

    private AsciiString ascii(final int length)
    {
        return new AsciiString(value, 0, length, true);
    }

    public void write(final ChannelHandlerContext ctx, final Object msg, final ChannelPromise promise)
    {
        if (head == tail)
        {
            ctx.write(msg, promise);
            return;
        }
        final int slot = head & MASK;
        if (msg instanceof HttpResponse && !responseStarted)
        {
            final HttpResponse response = (HttpResponse)msg;
            if (HttpStatusClass.INFORMATIONAL == response.status().codeClass())
            {
                ctx.write(msg, promise);
                return;
            }
            responseStarted = true;
            onResponseHead(response, slot);
        }
        if (msg instanceof LastHttpContent && responseStarted)
        {
            responseStarted = false;
            head++;
            ctx.write(msg, promise);
            writeRejectionsAtHead(ctx);
            return;
        }
        ctx.write(msg, promise);
    }

    private void onResponseHead(final HttpResponse response, final int slot)
    {
        final HttpRateLimit config = this.config;
        final byte kind = kinds[slot];
        if (PASS_WOULD_REJECT == kind)
        {
            response.headers().set(HttpRateLimit.X_RATELIMIT_DRY_RUN, HttpRateLimit.WOULD_REJECT);
        }
        if (HttpRateLimit.Mode.CHARGE_AFTER == config.mode)
        {
            final int status = response.status().code();
            long cost = status >= 0 && status < 600 && config.chargedStatus[status] ? 1 : 0;
            if (null != config.costHeader)
            {
                cost = parseCost(response.headers().get(config.costHeader));
            }
            if (cost > 0)
            {
                config.debt.debit(keys, slot * KeyExtractor.MAX_KEY_LENGTH, keyLengths[slot], cost,
                    config.clock.nanoTime());
            }
        }
        else if (config.headersOnAdmitted)
        {
            rateLimitHeaders(response.headers(), slot);
        }
    }

    private static long parseCost(final String v)
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

    private void hold(final ChannelHandlerContext ctx, final Object request, final long delayNs)
    {
        if (null == held)
        {
            held = new ArrayDeque<>();
        }
        held.addFirst(request);
        holding = true;
        ctx.channel().config().setAutoRead(false);
        releaseFuture = ctx.executor().schedule(release, delayNs, TimeUnit.NANOSECONDS);
    }

    private void release()
    {
        releaseFuture = null;
        final ChannelHandlerContext ctx = this.ctx;
        if (!holding || ctx.isRemoved())
        {
            return;
        }
        holding = false;
        ctx.fireChannelRead(held.pollFirst()); // the delayed request itself, already decided
        Object msg;
        while (!holding && null != (msg = held.pollFirst()))
        {
            handleRead(ctx, msg);
        }
        ctx.fireChannelReadComplete();
        if (!holding)
        {
            ctx.channel().config().setAutoRead(true);
        }
    }

    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        if (!holding)
        {
            ctx.fireChannelReadComplete();
        }
    }

    public void handlerRemoved(final ChannelHandlerContext ctx)
    {
        cleanUp();
    }

    public void channelInactive(final ChannelHandlerContext ctx)
    {
        cleanUp();
        ctx.fireChannelInactive();
    }

    private void cleanUp()
    {
        holding = false;
        if (null != releaseFuture)
        {
            releaseFuture.cancel(false);
            releaseFuture = null;
        }
        if (null != held)
        {
            Object msg;
            while (null != (msg = held.pollFirst()))
            {
                ReferenceCountUtil.release(msg);
            }
        }
    }
}
