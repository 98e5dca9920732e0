package dev.cellrate.rls;

import dev.cellrate.Decision;
import dev.cellrate.Result;
import dev.cellrate.rls.config.RateLimitRule;
import dev.cellrate.window.FixedWindowLimiter;
import org.agrona.concurrent.NanoClock;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fixed windows counted as envoyproxy/ratelimit counts them: per descriptor (its domain, keys and values) a
 * counter per window {@code [k W, (k + 1) W)} of Unix time, W = the rule's unit (times {@code units}); a request
 * of {@code h} hits is OK iff the count plus {@code h} is at most {@code requests_per_unit}, and the reference
 * adds {@code h} whether or not it was OK. Each counter is the engine's {@link FixedWindowLimiter}: an admitted
 * request is charged by {@code tryAcquire}; a refused one by {@code debit}, which fills the window up to the
 * limit, so every later request of the window is refused, exactly as the reference's counter, now above the
 * limit, refuses it. Descriptors are decided one by one, none rolled back, as the reference does.
 * <p>
 * Hits 0 (a check) answer OK with the window's remaining permits, as the reference does while its counter is
 * at most the limit. One difference: once a window has refused a request the reference's counter is above the
 * limit and a check answers OVER_LIMIT; here the count stops at the limit and a check answers OK with 0
 * remaining.
 * <p>
 * Cells live in a map bounded by {@code maxKeys}; when it is full, cells of past windows are dropped (at most
 * one sweep per second); a new descriptor that still finds no room is refused (OVER_LIMIT, counted in
 * {@link #refusedFull()}), never admitted uncounted.
 */
final class FixedWindowDecider implements Decider
{
    private static final long NS_PER_SECOND = 1_000_000_000L;

    private final int maxKeys;
    private final NanoClock epochClock;
    private final Map<String, FixedWindowLimiter> cells = new ConcurrentHashMap<>();
    private final AtomicLong lastSweepNs = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong refusedFull = new AtomicLong();
    private final ThreadLocal<Decision> decisions = ThreadLocal.withInitial(Decision::new);

    /**
     * @param maxKeys    the most descriptors with a live window.
     * @param epochClock ns since the Unix epoch (windows align to it).
     */
    FixedWindowDecider(final int maxKeys, final NanoClock epochClock)
    {
        this.maxKeys = maxKeys;
        this.epochClock = null == epochClock ? () -> System.currentTimeMillis() * 1_000_000L : epochClock;
    }

    public RuleState state(final RateLimitRule rule, final RuleState previous)
    {
        if (null != previous && previous.rule.sameLimit(rule))
        {
            return previous.rule == rule ? previous : new RuleState(rule, null, null);
        }
        final RuleState state = new RuleState(rule, null, null);
        if (null != state.limit)
        {
            new FixedWindowLimiter(rule.requestsPerUnit(), state.windowNs); // fails now on a limit it cannot hold
        }
        return state;
    }

    public long nowNs()
    {
        return epochClock.nanoTime();
    }

    long refusedFull()
    {
        return refusedFull.get();
    }

    int liveKeys()
    {
        return cells.size();
    }

    public Map<String, Long> counters(final java.util.Collection<RuleState> states)
    {
        return Map.of("cellrate_rls_table_full_events", refusedFull.get(), "cellrate_rls_live_descriptors",
            (long)cells.size());
    }

    public void decide(final Plan plan, final Runnable done)
    {
        for (int i = 0; i < plan.count; i++)
        {
            if (plan.decided(i))
            {
                decideOne(plan, i);
            }
            else if (plan.limited(i))
            {
                refundOne(plan, i);
            }
        }
        done.run();
    }

    private void decideOne(final Plan plan, final int i)
    {
        final RuleState state = plan.states[i];
        final long nowNs = plan.nowNs;
        final long windowNs = state.windowNs;
        final long windowSeconds = windowNs / NS_PER_SECOND;
        final long nowSeconds = Math.floorDiv(nowNs, NS_PER_SECOND);
        plan.resetNs[i] = (windowSeconds - Math.floorMod(nowSeconds, windowSeconds)) * NS_PER_SECOND;
        final long limit = state.rule.requestsPerUnit();
        if (0 == limit)
        {
            plan.over[i] = true;
            plan.remaining[i] = 0;
            return;
        }
        final long hits = plan.hits[i];
        final FixedWindowLimiter cell = cell(state, plan.keyTexts[i], nowNs);
        if (null == cell)
        {
            plan.over[i] = true;
            plan.remaining[i] = 0;
            refusedFull.incrementAndGet();
            return;
        }
        if (0 == hits)
        {
            final long count = cell.windowIndex() == Math.floorDiv(nowNs, windowNs) ? cell.count() : 0;
            plan.over[i] = count > limit;
            plan.remaining[i] = Math.max(0, limit - count);
            return;
        }
        final Decision decision = decisions.get();
        final long code = cell.tryAcquire(hits, nowNs, decision);
        if (Result.isAdmitted(code))
        {
            plan.over[i] = false;
            plan.remaining[i] = decision.remaining();
        }
        else
        {
            cell.debit(hits, nowNs);
            plan.over[i] = true;
            plan.remaining[i] = 0;
        }
    }

    /**
     * A refund: the current window's count of the descriptor goes down by its hits, never below 0; a descriptor
     * with no counter in this window has nothing to give back.
     */
    private void refundOne(final Plan plan, final int i)
    {
        final RuleState state = plan.states[i];
        final long nowNs = plan.nowNs;
        final long windowNs = state.windowNs;
        final long windowSeconds = windowNs / NS_PER_SECOND;
        plan.resetNs[i] = (windowSeconds - Math.floorMod(Math.floorDiv(nowNs, NS_PER_SECOND), windowSeconds)) *
            NS_PER_SECOND;
        final long limit = state.rule.requestsPerUnit();
        plan.over[i] = false;
        plan.remaining[i] = limit;
        if (0 == limit)
        {
            plan.remaining[i] = 0;
            return;
        }
        final FixedWindowLimiter cell = cells.get(cellKey(state, plan.keyTexts[i]));
        if (null != cell)
        {
            cell.refund(plan.hits[i], nowNs);
            if (cell.windowIndex() == Math.floorDiv(nowNs, windowNs))
            {
                plan.remaining[i] = Math.max(0, limit - cell.count());
            }
        }
    }

    private static String cellKey(final RuleState state, final String keyText)
    {
        return state.rule.requestsPerUnit() + "/" + state.windowNs + "|" + keyText;
    }

    private FixedWindowLimiter cell(final RuleState state, final String keyText, final long nowNs)
    {
        final String key = cellKey(state, keyText);
        final FixedWindowLimiter cell = cells.get(key);
        if (null != cell)
        {
            return cell;
        }
        if (cells.size() >= maxKeys && !sweep(nowNs))
        {
            return null;
        }
        return cells.computeIfAbsent(key, k -> new FixedWindowLimiter(state.rule.requestsPerUnit(), state.windowNs));
    }

    /**
     * Drop the cells whose window has passed; at most once a second.
     *
     * @return true if there is room now.
     */
    private boolean sweep(final long nowNs)
    {
        final long last = lastSweepNs.get();
        if (last != Long.MIN_VALUE && nowNs - last < NS_PER_SECOND || !lastSweepNs.compareAndSet(last, nowNs))
        {
            return cells.size() < maxKeys;
        }
        for (final Iterator<Map.Entry<String, FixedWindowLimiter>> it = cells.entrySet().iterator(); it.hasNext(); )
        {
            final Map.Entry<String, FixedWindowLimiter> entry = it.next();
            final String key = entry.getKey();
            final long windowNs = Long.parseLong(key.substring(key.indexOf('/') + 1, key.indexOf('|')));
            if (entry.getValue().windowIndex() < Math.floorDiv(nowNs, windowNs))
            {
                it.remove();
            }
        }
        return cells.size() < maxKeys;
    }
}
