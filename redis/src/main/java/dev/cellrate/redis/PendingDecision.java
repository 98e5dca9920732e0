package dev.cellrate.redis;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One decision waiting in a {@link Coalescer}: the key, its increment and its own {@link ScriptReply}. Exactly one
 * side settles it, by a CAS on {@code state}: the combined call that carries it ({@link #claim()}, then fills the
 * reply and {@link #release()}s it), or the caller's side when its deadline passes first ({@link #abandon()}, then
 * the fail policy answers). The reply is written only by the side that won, so nobody reads a reply that is being
 * parsed. A synchronous caller waits for it ({@link BlockingDecision}); an asynchronous one is called back
 * ({@link ListenedDecision}).
 */
abstract class PendingDecision
{
    static final int WAITING = 0;
    static final int CLAIMED = 1;
    static final int ANSWERED = 2;
    static final int ABANDONED = 3;
    private static final AtomicIntegerFieldUpdater<PendingDecision> STATE =
        AtomicIntegerFieldUpdater.newUpdater(PendingDecision.class, "state");

    final byte[] redisKey;
    final long incrementUs;
    /** The caller's time in &micro;s, or {@link RedisRateLimiter#SERVER_TIME}. */
    final long nowUs;
    final ScriptReply reply;
    volatile int state;
    PendingDecision next;

    PendingDecision(final byte[] redisKey, final long incrementUs, final long nowUs)
    {
        this.redisKey = redisKey;
        this.incrementUs = incrementUs;
        this.nowUs = nowUs;
        this.reply = new ScriptReply(incrementUs);
    }

    /** @return true iff the caller's side gave up before this decision was sent (sending it would charge for nothing). */
    final boolean abandoned()
    {
        return ABANDONED == state;
    }

    /** The combined call's side: true iff it may fill the reply (the caller's side has not given up). */
    final boolean claim()
    {
        return STATE.compareAndSet(this, WAITING, CLAIMED);
    }

    /** The caller's side: true iff it gives up first (the combined call will neither fill nor send it). */
    final boolean abandon()
    {
        return STATE.compareAndSet(this, WAITING, ABANDONED);
    }

    /** After {@link #claim()} and filling the reply: publish it and hand it to the caller. */
    final void release()
    {
        state = ANSWERED;
        answered();
    }

    /** The reply is published: wake or call back the caller. */
    abstract void answered();
}
