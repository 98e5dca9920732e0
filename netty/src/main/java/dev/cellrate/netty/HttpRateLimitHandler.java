package dev.cellrate.netty;

import dev.cellrate.Decision;
import dev.cellrate.Reservation;
import dev.cellrate.Result;
import dev.cellrate.http.RateLimitFields;
import io.netty.channel.ChannelConfig;
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
 * Limits HTTP requests in a Netty pipeline: one decision of the configured keyed front per request (see
 * {@link HttpRateLimit}). One instance per channel (it keeps per-connection state); the {@link HttpRateLimit}
 * it reads is shared.
 * <p>
 * <b>Order.</b> Admitted requests go on untouched. A rejected request is answered by this handler; its body
 * is released as it arrives and the connection is kept. HTTP/1.1 pipelining (RFC 9112 &sect;9.3.2): a
 * rejection is queued behind the responses still owed to earlier admitted requests and written right after
 * the last of them, so responses leave in request order.
 * <p>
 * <b>Backpressure.</b> At most {@link #MAX_OUTSTANDING} requests are owed a response at once on one
 * connection. A request beyond that is not decided yet: it and everything after it wait in the handler, and
 * the handler turns the channel's {@code autoRead} off, so the socket is not read further. When a response
 * completes, the waiting requests are decided in order and reading resumes once none is left (autoRead is
 * turned back on only if the handler turned it off). Every pipelined request is answered; a request that
 * is still waiting when the connection closes is released undecided, so it is never charged. The same
 * waiting carries a shaped request's delay ({@link HttpRateLimit.Mode#SHAPE}).
 * <p>
 * <b>Malformed requests.</b> A request whose {@code decoderResult()} failed (a bad request line or header, a
 * header section over the decoder's limit) is passed on undecided and uncharged, in its place in the
 * response order, for the next handler to answer (typically 400 or 431, then close). The handler itself
 * never throws on one.
 * <p>
 * <b>Cost.</b> An admitted request costs a key extraction (allocation-free, see {@link KeyExtractor}) and
 * one decision of the front, which fills the {@link Decision} of the request's slot (one per owed
 * response). With no fields on admitted responses this handler allocates nothing. A rejection allocates what
 * Netty needs to send it (a duplicate of the template response and the header value strings). No key means
 * the configured fallback.
 * <p>
 * Threading: every method runs on the channel's event loop.
 */
public final class HttpRateLimitHandler extends ChannelDuplexHandler
{
    /** Most requests on one connection that may be owed a response at once; more wait unread. */
    public static final int MAX_OUTSTANDING = 16;

    private static final int MASK = MAX_OUTSTANDING - 1;
    private static final byte PASS = 1;
    private static final byte PASS_WOULD_REJECT = 2;
    private static final byte PASS_UNDECIDED = 3;
    private static final byte REJECT = 4;
    private static final byte REJECT_GRPC = 5;
    private static final byte BAD_REQUEST = 6;

    private final HttpRateLimit config;
    private final byte[] key = new byte[KeyExtractor.MAX_KEY_LENGTH];
    private final KeyChars keyChars = new KeyChars();
    private final byte[] value;
    private final Reservation reservation;

    /** The owed responses, a ring indexed by {@code head..tail}: kind, the front's decision, the key. */
    private final byte[] kinds = new byte[MAX_OUTSTANDING];
    private final Decision[] decisions = new Decision[MAX_OUTSTANDING];
    private final byte[] keys;
    private final int[] keyLengths;
    private int head;
    private int tail;

    private boolean discarding;
    private boolean responseStarted;

    /** Inbound messages not handled yet (backpressure or a shaped delay), in arrival order. */
    private ArrayDeque<Object> waiting;
    /** A shaped request decided and owed, released at its time; everything after it waits. */
    private HttpRequest delayed;
    private ScheduledFuture<?> releaseFuture;
    private boolean resumeScheduled;
    /** Writes of this handler in progress (a write, or the rejections it writes): no resume inside one. */
    private int writeDepth;
    private boolean resumeDeferred;
    private boolean autoReadTurnedOff;
    private ChannelHandlerContext ctx;
    private final Runnable release = this::release;
    private final Runnable resume = this::resume;

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
        this.value = new byte[config.valueLength];
        for (int i = 0; i < MAX_OUTSTANDING; i++)
        {
            decisions[i] = new Decision();
        }
        final boolean keepKeys = HttpRateLimit.Mode.CHARGE_AFTER == config.mode;
        this.keys = keepKeys ? new byte[MAX_OUTSTANDING * KeyExtractor.MAX_KEY_LENGTH] : null;
        this.keyLengths = keepKeys ? new int[MAX_OUTSTANDING] : null;
        this.reservation = HttpRateLimit.Mode.SHAPE == config.mode ? new Reservation() : null;
    }

    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
    }

    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (null != delayed || (null != waiting && !waiting.isEmpty()) ||
            (msg instanceof HttpRequest && tail - head >= MAX_OUTSTANDING))
        {
            enqueue(ctx, msg);
            return;
        }
        handleRead(ctx, msg);
    }

    private void handleRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (msg instanceof HttpRequest)
        {
            discarding = false;
            final HttpRequest request = (HttpRequest)msg;
            if (request.decoderResult().isFailure())
            {
                push(PASS_UNDECIDED);
                ctx.fireChannelRead(request);
                return;
            }
            onRequest(ctx, request);
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
        final HttpRateLimit config = this.config;
        int length = config.keyExtractor.extract(ctx.channel(), request, key);
        if (length < 0 || length > KeyExtractor.MAX_KEY_LENGTH)
        {
            config.noKey.increment();
            if (null == config.fallbackKey)
            {
                reject(ctx, request, BAD_REQUEST);
                return;
            }
            length = config.fallbackKey.length;
            System.arraycopy(config.fallbackKey, 0, key, 0, length);
        }
        keyChars.wrap(key, 0, length);
        switch (config.mode)
        {
            case ENFORCE:
                enforce(ctx, request);
                break;
            case SHAPE:
                shape(ctx, request);
                break;
            default:
                chargeLater(ctx, request, length);
                break;
        }
    }

    private void enforce(final ChannelHandlerContext ctx, final HttpRequest request)
    {
        final Decision decision = decisions[tail & MASK];
        decision.setOutcome(Result.NEVER, 0, 0, 0); // a front that answers without filling it leaves no stale fields
        final long code = config.limiter.tryAcquire(keyChars, 1, decision);
        if (Result.WOULD_HAVE_REJECTED == code)
        {
            config.wouldReject.increment();
            pass(ctx, request, PASS_WOULD_REJECT);
        }
        else if (Result.isAdmitted(code))
        {
            pass(ctx, request, PASS);
        }
        else
        {
            reject(ctx, request, isGrpc(request) ? REJECT_GRPC : REJECT);
        }
    }

    /**
     * A reservation answers only a delay or a retry-after: the slot's {@link Decision} carries the retry-after
     * (as a decision code) and no remaining or reset.
     */
    private void shape(final ChannelHandlerContext ctx, final HttpRequest request)
    {
        final Decision decision = decisions[tail & MASK];
        final long code = config.reserver.reserve(keyChars, 1, reservation);
        if (Result.WOULD_HAVE_REJECTED == code || (0 == code && 0 == reservation.incrementNs()))
        {
            // a front in dry-run that would have refused: it answers "go now" with nothing reserved (a real
            // admission always reserves n * T > 0), or WOULD_HAVE_REJECTED
            config.wouldReject.increment();
            decision.setOutcome(Result.ADMITTED, 0, 0, 0);
            pass(ctx, request, PASS_WOULD_REJECT);
        }
        else if (Result.isReserved(code))
        {
            decision.setOutcome(Result.ADMITTED, 0, 0, 0);
            if (0 == code)
            {
                pass(ctx, request, PASS);
                return;
            }
            push(PASS);
            config.admitted.increment();
            delay(ctx, request, code);
        }
        else
        {
            final long retryNs = Result.isEncodedRetryAfter(code) ? Result.decodeRetryAfterNs(code) : 0;
            decision.setOutcome(retryNs > 0 ? retryNs : Result.NEVER, 0, 0, 0);
            reject(ctx, request, isGrpc(request) ? REJECT_GRPC : REJECT);
        }
    }

    private void chargeLater(final ChannelHandlerContext ctx, final HttpRequest request, final int length)
    {
        final int slot = tail & MASK;
        final long code = config.debit.peek(keyChars, 1, config.debit.clock().nanoTime());
        if (Result.isAdmitted(code))
        {
            decisions[slot].setOutcome(Result.ADMITTED, 0, 0, 0);
            System.arraycopy(key, 0, keys, slot * KeyExtractor.MAX_KEY_LENGTH, length);
            keyLengths[slot] = length;
            pass(ctx, request, PASS);
        }
        else
        {
            decisions[slot].setOutcome(code, 0, 0, 0);
            reject(ctx, request, isGrpc(request) ? REJECT_GRPC : REJECT);
        }
    }

    private void pass(final ChannelHandlerContext ctx, final HttpRequest request, final byte kind)
    {
        push(kind);
        config.admitted.increment();
        ctx.fireChannelRead(request);
    }

    private void reject(final ChannelHandlerContext ctx, final HttpRequest request, final byte kind)
    {
        config.rejected.increment();
        push(kind);
        discarding = !(request instanceof LastHttpContent);
        ReferenceCountUtil.release(request);
        if (writeRejectionsAtHead(ctx))
        {
            ctx.flush();
        }
    }

    private void push(final byte kind)
    {
        kinds[tail & MASK] = kind;
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
        writeDepth++;
        try
        {
            return writeRejections(ctx);
        }
        finally
        {
            writeDepth--;
        }
    }

    private boolean writeRejections(final ChannelHandlerContext ctx)
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
                rejectionHeaders(response.headers(), decisions[slot], REJECT_GRPC == kind);
            }
            head++;
            ctx.write(response);
            wrote = true;
        }
        if (wrote)
        {
            scheduleResume(ctx);
        }
        return wrote;
    }

    private void rejectionHeaders(final HttpHeaders headers, final Decision decision, final boolean grpc)
    {
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
            decisionHeaders(headers, decision);
        }
    }

    /** The {@code RateLimit} field (with a policy) and the legacy fields (if on) of a front's decision. */
    private void decisionHeaders(final HttpHeaders headers, final Decision decision)
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

    public void write(final ChannelHandlerContext ctx, final Object msg, final ChannelPromise promise)
    {
        writeDepth++;
        try
        {
            onWrite(ctx, msg, promise);
        }
        finally
        {
            if (0 == --writeDepth && resumeDeferred)
            {
                resumeDeferred = false;
                scheduleResume(ctx);
            }
        }
    }

    private void onWrite(final ChannelHandlerContext ctx, final Object msg, final ChannelPromise promise)
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
            scheduleResume(ctx);
            return;
        }
        ctx.write(msg, promise);
    }

    private void onResponseHead(final HttpResponse response, final int slot)
    {
        final HttpRateLimit config = this.config;
        final byte kind = kinds[slot];
        if (PASS_UNDECIDED == kind)
        {
            return;
        }
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
                config.debit.debit(keyChars.wrap(keys, slot * KeyExtractor.MAX_KEY_LENGTH, keyLengths[slot]), cost,
                    config.debit.clock().nanoTime());
            }
        }
        else if (config.headersOnAdmitted)
        {
            if (null != config.policyValue)
            {
                response.headers().set(HttpRateLimit.RATELIMIT_POLICY, config.policyValue);
            }
            if (HttpRateLimit.Mode.ENFORCE == config.mode)
            {
                decisionHeaders(response.headers(), decisions[slot]);
            }
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

    /** Keep a message for later and stop reading the socket until the waiting ones are handled. */
    private void enqueue(final ChannelHandlerContext ctx, final Object msg)
    {
        if (null == waiting)
        {
            waiting = new ArrayDeque<>();
        }
        waiting.addLast(msg);
        pauseReading(ctx);
    }

    private void pauseReading(final ChannelHandlerContext ctx)
    {
        final ChannelConfig channelConfig = ctx.channel().config();
        if (!autoReadTurnedOff && channelConfig.isAutoRead())
        {
            channelConfig.setAutoRead(false);
            autoReadTurnedOff = true;
        }
    }

    private void delay(final ChannelHandlerContext ctx, final HttpRequest request, final long delayNs)
    {
        delayed = request;
        pauseReading(ctx);
        releaseFuture = ctx.executor().schedule(release, delayNs, TimeUnit.NANOSECONDS);
    }

    private void release()
    {
        releaseFuture = null;
        final HttpRequest request = delayed;
        delayed = null;
        if (null == request)
        {
            return;
        }
        final ChannelHandlerContext ctx = this.ctx;
        if (ctx.isRemoved() || !ctx.channel().isActive())
        {
            ReferenceCountUtil.release(request);
            return;
        }
        ctx.fireChannelRead(request); // already decided and counted
        drainWaiting(ctx);
        ctx.fireChannelReadComplete();
    }

    private void scheduleResume(final ChannelHandlerContext ctx)
    {
        if (!resumeScheduled && null == delayed && null != waiting && !waiting.isEmpty())
        {
            resumeScheduled = true;
            ctx.executor().execute(resume); // not from inside the write that freed a slot: no re-entry
        }
    }

    private void resume()
    {
        resumeScheduled = false;
        final ChannelHandlerContext ctx = this.ctx;
        if (writeDepth > 0)
        {
            // run from inside a write (an executor that runs tasks inline, as EmbeddedChannel's does on write):
            // deciding now would write through encoders that are still in the middle of a write; resume after it
            resumeDeferred = true;
            return;
        }
        if (null == delayed && !ctx.isRemoved() && ctx.channel().isActive() && drainWaiting(ctx))
        {
            ctx.fireChannelReadComplete();
        }
    }

    /**
     * Handle the waiting messages in order while the owed queue has room and nothing is delayed; read again
     * once none is left.
     *
     * @return true if a message was handled.
     */
    private boolean drainWaiting(final ChannelHandlerContext ctx)
    {
        boolean handled = false;
        final ArrayDeque<Object> waiting = this.waiting;
        if (null != waiting)
        {
            Object msg;
            while (null == delayed && null != (msg = waiting.peekFirst()))
            {
                if (msg instanceof HttpRequest && tail - head >= MAX_OUTSTANDING)
                {
                    break;
                }
                waiting.pollFirst();
                handleRead(ctx, msg);
                handled = true;
            }
        }
        if (null == delayed && (null == waiting || waiting.isEmpty()) && autoReadTurnedOff)
        {
            autoReadTurnedOff = false;
            ctx.channel().config().setAutoRead(true);
        }
        return handled;
    }

    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        if (null == delayed)
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

    /** Release what never reached a decision (nothing of it was charged) and the delayed request. */
    private void cleanUp()
    {
        if (null != releaseFuture)
        {
            releaseFuture.cancel(false);
            releaseFuture = null;
        }
        if (null != delayed)
        {
            ReferenceCountUtil.release(delayed);
            delayed = null;
        }
        if (null != waiting)
        {
            Object msg;
            while (null != (msg = waiting.pollFirst()))
            {
                ReferenceCountUtil.release(msg);
            }
        }
    }
}
