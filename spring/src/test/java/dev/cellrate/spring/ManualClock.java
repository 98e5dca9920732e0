package dev.cellrate.spring;

import org.agrona.concurrent.NanoClock;

import java.util.concurrent.atomic.AtomicLong;

/** A clock the tests move by hand, so a "retry after N s" is tried at exactly N s without sleeping. */
final class ManualClock implements NanoClock
{
    private final AtomicLong nowNs = new AtomicLong(1_000_000_000_000L);

    public long nanoTime()
    {
        return nowNs.get();
    }

    void advanceNs(final long ns)
    {
        nowNs.addAndGet(ns);
    }
}
