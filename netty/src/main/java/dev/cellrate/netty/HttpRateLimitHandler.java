package dev.cellrate.netty;

import dev.cellrate.Decision;
import dev.cellrate.Reservation;
import dev.cellrate.Result;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

import static dev.cellrate.netty.OwedResponses.BAD_REQUEST;
import static dev.cellrate.netty.OwedResponses.PASS;
import static dev.cellrate.netty.OwedResponses.PASS_UNDECIDED;
import static dev.cellrate.netty.OwedResponses.PASS_WOULD_REJECT;
import static dev.cellrate.netty.OwedResponses.REJECT;
import static dev.cellrate.netty.OwedResponses.REJECT_GRPC;

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
 * Structure: {@link OwedResponses} keeps the owed responses in order, {@link ReadBacklog} the messages that wait
 * and the reads they hold back, {@link RateLimitHeaders} writes the fields; this class decides and sequences.
 * <p>
 * Threading: every method runs on the channel's event loop.
 */
public final class HttpRateLimitHandler extends ChannelDuplexHandler
{
    /** Most requests on one connection that may be owed a response at once; more wait unread. */
    public static final int MAX_OUTSTANDING = 16;

    private final HttpRateLimit config;
    private final byte[] key = new byte[KeyExtractor.MAX_KEY_LENGTH];
    private final KeyChars keyChars = new KeyChars();
    private final Reservation reservation;
    private final OwedResponses owed;
    private final RateLimitHeaders headers;
    private final ReadBacklog backlog = new ReadBacklog();

    private boolean discarding;
    private boolean responseStarted;

    /** A shaped request decided and owed, released at its time; everything after it waits. */
    private HttpRequest delayed;
    private ScheduledFuture<?> releaseFuture;
    private boolean resumeScheduled;
    /** Writes of this handler in progress (a write, or the rejections it writes): no resume inside one. */
    private int writeDepth;
    private boolean resumeDeferred;
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
        this.owed = new OwedResponses(HttpRateLimit.Mode.CHARGE_AFTER == config.mode);
        this.headers = new RateLimitHeaders(config);
        this.reservation = HttpRateLimit.Mode.SHAPE == config.mode ? new Reservation() : null;
    }

    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
    }

    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (null != delayed || !backlog.isEmpty() || (msg instanceof HttpRequest && owed.isFull()))
        {
            backlog.add(ctx, msg);
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
                owed.push(PASS_UNDECIDED);
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
        final Decision decision = owed.nextDecision();
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
            reject(ctx, request, RateLimitHeaders.isGrpc(request) ? REJECT_GRPC : REJECT);
        }
    }

    /**
     * A reservation answers only a delay or a retry-after: the slot's {@link Decision} carries the retry-after
     * (as a decision code) and no remaining or reset.
     */
    private void shape(final ChannelHandlerContext ctx, final HttpRequest request)
    {
        final Decision decision = owed.nextDecision();
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
            owed.push(PASS);
            config.admitted.increment();
            delay(ctx, request, code);
        }
        else
        {
            final long retryNs = Result.isEncodedRetryAfter(code) ? Result.decodeRetryAfterNs(code) : 0;
            decision.setOutcome(retryNs > 0 ? retryNs : Result.NEVER, 0, 0, 0);
            reject(ctx, request, RateLimitHeaders.isGrpc(request) ? REJECT_GRPC : REJECT);
        }
    }

    private void chargeLater(final ChannelHandlerContext ctx, final HttpRequest request, final int length)
    {
        final long code = config.debit.peek(keyChars, 1, config.debit.clock().nanoTime());
        if (Result.isAdmitted(code))
        {
            owed.nextDecision().setOutcome(Result.ADMITTED, 0, 0, 0);
            owed.keepNextKey(key, length);
            pass(ctx, request, PASS);
        }
        else
        {
            owed.nextDecision().setOutcome(code, 0, 0, 0);
            reject(ctx, request, RateLimitHeaders.isGrpc(request) ? REJECT_GRPC : REJECT);
        }
    }

    private void pass(final ChannelHandlerContext ctx, final HttpRequest request, final byte kind)
    {
        owed.push(kind);
        config.admitted.increment();
        ctx.fireChannelRead(request);
    }

    private void reject(final ChannelHandlerContext ctx, final HttpRequest request, final byte kind)
    {
        config.rejected.increment();
        owed.push(kind);
        discarding = !(request instanceof LastHttpContent);
        ReferenceCountUtil.release(request);
        if (writeRejectionsAtHead(ctx))
        {
            ctx.flush();
        }
    }

    /**
     * Write every rejection at the head of the queue (the responses owed before them are complete).
     */
    private boolean writeRejectionsAtHead(final ChannelHandlerContext ctx)
    {
        writeDepth++;
        try
        {
            boolean wrote = false;
            while (owed.headIsRejection())
            {
                final FullHttpResponse response = headers.rejection(owed.headKind(), owed.headDecision());
                owed.pop();
                ctx.write(response);
                wrote = true;
            }
            if (wrote)
            {
                scheduleResume(ctx);
            }
            return wrote;
        }
        finally
        {
            writeDepth--;
        }
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
        if (owed.isEmpty())
        {
            ctx.write(msg, promise);
            return;
        }
        if (msg instanceof HttpResponse && !responseStarted)
        {
            final HttpResponse response = (HttpResponse)msg;
            if (HttpStatusClass.INFORMATIONAL == response.status().codeClass())
            {
                ctx.write(msg, promise);
                return;
            }
            responseStarted = true;
            onResponseHead(response);
        }
        if (msg instanceof LastHttpContent && responseStarted)
        {
            responseStarted = false;
            owed.pop();
            ctx.write(msg, promise);
            writeRejectionsAtHead(ctx);
            scheduleResume(ctx);
            return;
        }
        ctx.write(msg, promise);
    }

    private void onResponseHead(final HttpResponse response)
    {
        final HttpRateLimit config = this.config;
        final byte kind = owed.headKind();
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
                cost = RateLimitHeaders.parseCost(response.headers().get(config.costHeader));
            }
            if (cost > 0)
            {
                config.debit.debit(owed.headKey(keyChars), cost, config.debit.clock().nanoTime());
            }
        }
        else if (config.headersOnAdmitted)
        {
            headers.admitted(response.headers(), owed.headDecision());
        }
    }

    private void delay(final ChannelHandlerContext ctx, final HttpRequest request, final long delayNs)
    {
        delayed = request;
        backlog.pauseReading(ctx);
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
        if (!resumeScheduled && null == delayed && !backlog.isEmpty())
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
        Object msg;
        while (null == delayed && null != (msg = backlog.peek()))
        {
            if (msg instanceof HttpRequest && owed.isFull())
            {
                break;
            }
            backlog.remove();
            handleRead(ctx, msg);
            handled = true;
        }
        if (null == delayed && backlog.isEmpty())
        {
            backlog.resumeReading(ctx);
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
        backlog.releaseAll();
    }
}
