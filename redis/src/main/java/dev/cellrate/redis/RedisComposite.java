package dev.cellrate.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * GCRA over several Redis keys, each with its own limit, decided all or nothing in one round trip: one
 * {@code EVALSHA} of {@code gcra_all.lua} reads every key, and charges the legs that are to be charged only if
 * every leg that takes part conforms; otherwise it writes nothing of theirs. A refused request therefore takes
 * nothing from any of its keys, even when another process decides the same keys at the same time (a Lua script
 * runs atomically).
 * <p>
 * Legs ({@link Legs#add}): {@link #CHARGE} (conform, and be charged with the others), {@link #CHECK} (conform,
 * never charged: a peek that can refuse the others), {@link #ALONE} (charged if it conforms, whatever the
 * others, and never refusing them: a shadow-mode leg) and {@link #REFUND} (its cost given back, never beyond a
 * full bucket). A key may appear in several legs; each leg sees the
 * charges of the legs before it.
 * <p>
 * Time: the server's {@code TIME}, one clock for the fleet. Limits are rounded to whole &micro;s by
 * {@link MicrosLimit}, so Redis never admits more than the engine with the same limit.
 * <p>
 * Cluster: a script's keys must hash to one slot in Redis Cluster; put a hash tag in every key (for example a
 * prefix {@code {rls}:}) to keep a request's keys together, or the call fails with {@code CROSSSLOT} and is
 * answered as a failure. A single node, or a primary with replicas, needs nothing.
 * <p>
 * Failure: a call that Redis does not answer within the timeout, or answers with an error that is not about
 * one key, completes with {@link Legs#cause()} set and no decision; the caller applies its fail policy. After a
 * restart or {@code SCRIPT FLUSH} ({@code NOSCRIPT}) the call is sent once more by {@code EVAL}, within the
 * same timeout. A key holding something that is not a TAT refuses its leg ({@link Legs#keyError(int)}) and
 * changes nothing: that call is an answer, not a failure.
 * <p>
 * Circuit breaker, with {@link RedisRateLimiter}'s semantics ({@link RedisRateLimiterBuilder#circuitBreaker}): a
 * count-based window over the outcomes of the last calls that reached Redis. When enough of them failed (timed out,
 * or failed for a reason about the server), the breaker opens: for its open period a call is not sent, and
 * completes at once, on the calling thread, with {@link FallbackCause#BREAKER_OPEN}; then one call probes Redis,
 * and its answer closes the breaker, its failure opens it again. A key error is an answer, so keys that hold
 * something else never open the breaker for the other keys.
 * <p>
 * Concurrency: any thread; the listener runs once per call, on a Lettuce I/O thread or on the thread that
 * times calls out. A call allocates what Lettuce needs for one command and its reply.
 */
public final class RedisComposite
{
    /** A leg that must conform and is never charged. */
    public static final int CHECK = 0;
    /** A leg that must conform and is charged iff every leg that takes part conforms. */
    public static final int CHARGE = 1;
    /** A leg charged iff it conforms, whatever the others; it never refuses them. */
    public static final int ALONE = 2;
    /**
     * A refund: the leg's cost is given back to its key (its TAT moves back by the cost, never below now: never
     * beyond a full bucket); it never refuses the others.
     */
    public static final int REFUND = 3;
    /** Most legs in one call. */
    public static final int MAX_LEGS = 64;

    private static final byte[] SOURCE;
    private static final String SHA1_HEX;
    private static final byte[] SERVER_TIME = "-1".getBytes(StandardCharsets.US_ASCII);
    private static final long NS_PER_US = 1000;

    static
    {
        try (InputStream in = RedisComposite.class.getResourceAsStream("gcra_all.lua"))
        {
            if (null == in)
            {
                throw new IllegalStateException("gcra_all.lua missing from the classpath");
            }
            SOURCE = in.readAllBytes();
            final byte[] digest = MessageDigest.getInstance("SHA-1").digest(SOURCE);
            final StringBuilder hex = new StringBuilder(40);
            for (final byte b : digest)
            {
                hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            SHA1_HEX = hex.toString();
        }
        catch (final IOException | NoSuchAlgorithmException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final StatefulRedisConnection<byte[], byte[]> connection;
    private final long timeoutNs;
    private final byte[] extraTtlMs;
    private final AtomicLong roundTrips = new AtomicLong();
    private final AtomicLong scriptReloads = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong breakerRefusals = new AtomicLong();
    private final CircuitBreaker breaker;

    /**
     * A composite with {@link RedisRateLimiterBuilder}'s default circuit breaker (window
     * {@value RedisRateLimiterBuilder#DEFAULT_BREAKER_WINDOW_CALLS} calls, at least
     * {@value RedisRateLimiterBuilder#DEFAULT_BREAKER_MINIMUM_CALLS} recorded,
     * {@value RedisRateLimiterBuilder#DEFAULT_BREAKER_FAILURE_RATE_PERCENT} % failed, open 1 s).
     *
     * @param connection a connection with byte-array keys and values (shared; Lettuce pipelines concurrent calls).
     * @param timeoutNs  how long a call may take, ns, in [1 ms, 1 min].
     * @param extraTtlMs how long a key outlives its TAT, ms, in [0, 1 day].
     */
    public RedisComposite(
        final StatefulRedisConnection<byte[], byte[]> connection, final long timeoutNs, final long extraTtlMs)
    {
        this(connection, timeoutNs, extraTtlMs, RedisRateLimiterBuilder.DEFAULT_BREAKER_WINDOW_CALLS,
            RedisRateLimiterBuilder.DEFAULT_BREAKER_MINIMUM_CALLS,
            RedisRateLimiterBuilder.DEFAULT_BREAKER_FAILURE_RATE_PERCENT, TimeUnit.SECONDS.toNanos(1));
    }

    /**
     * @param connection                a connection with byte-array keys and values (shared; Lettuce pipelines
     *                                  concurrent calls).
     * @param timeoutNs                 how long a call may take, ns, in [1 ms, 1 min].
     * @param extraTtlMs                how long a key outlives its TAT, ms, in [0, 1 day].
     * @param breakerWindowCalls        the breaker's outcomes kept, in [1,
     *                                  {@value RedisRateLimiterBuilder#MAX_BREAKER_WINDOW_CALLS}].
     * @param breakerMinimumCalls       calls recorded before it may open, in [1, breakerWindowCalls].
     * @param breakerFailureRatePercent failed share of the window that opens it, in [1, 100] %.
     * @param breakerOpenNs             how long it stays open before one probe, in [1 ms, 1 h].
     */
    public RedisComposite(
        final StatefulRedisConnection<byte[], byte[]> connection, final long timeoutNs, final long extraTtlMs,
        final int breakerWindowCalls, final int breakerMinimumCalls, final int breakerFailureRatePercent,
        final long breakerOpenNs)
    {
        if (null == connection)
        {
            throw new IllegalArgumentException("connection must not be null");
        }
        if (timeoutNs < TimeUnit.MILLISECONDS.toNanos(1) || timeoutNs > TimeUnit.MINUTES.toNanos(1))
        {
            throw new IllegalArgumentException("timeoutNs must be in [1 ms, 1 min] but was " + timeoutNs);
        }
        if (extraTtlMs < 0 || extraTtlMs > TimeUnit.DAYS.toMillis(1))
        {
            throw new IllegalArgumentException("extraTtlMs must be in [0, 86400000] but was " + extraTtlMs);
        }
        final int window = (int)Checks.requireRange("breakerWindowCalls", breakerWindowCalls, 1,
            RedisRateLimiterBuilder.MAX_BREAKER_WINDOW_CALLS);
        this.breaker = new CircuitBreaker(window,
            (int)Checks.requireRange("breakerMinimumCalls", breakerMinimumCalls, 1, window),
            (int)Checks.requireRange("breakerFailureRatePercent", breakerFailureRatePercent, 1, 100),
            Checks.requireRange("breakerOpenNs", breakerOpenNs, 1_000_000, TimeUnit.HOURS.toNanos(1)));
        this.connection = connection;
        this.timeoutNs = timeoutNs;
        this.extraTtlMs = Long.toString(extraTtlMs).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The legs of one call, filled by the caller, and their answers, filled by the call.
     * Not thread-safe: one call at a time per holder.
     */
    public static final class Legs
    {
        private final byte[][] keys;
        private final long[] incrementUs;
        private final long[] ceilingUs;
        private final long[] intervalUs;
        private final int[] modes;
        private final long[] retryAfterUs;
        private final long[] tatUs;
        private int count;

        /** A holder for up to {@link #MAX_LEGS} legs. */
        public Legs()
        {
            this(MAX_LEGS);
        }

        /**
         * @param capacity the most legs it holds, in [1, {@link #MAX_LEGS}].
         */
        public Legs(final int capacity)
        {
            if (capacity < 1 || capacity > MAX_LEGS)
            {
                throw new IllegalArgumentException("capacity must be in [1, " + MAX_LEGS + "] but was " + capacity);
            }
            keys = new byte[capacity][];
            incrementUs = new long[capacity];
            ceilingUs = new long[capacity];
            intervalUs = new long[capacity];
            modes = new int[capacity];
            retryAfterUs = new long[capacity];
            tatUs = new long[capacity];
        }
        private long nowUs;
        private boolean allConform;
        private FallbackCause cause;

        /**
         * Add a leg. A cost the limit can never admit (0, or above its burst) is sent as a leg that can never
         * conform, so it refuses the others (a {@link #CHECK} or {@link #CHARGE} leg) and charges nothing.
         *
         * @param key     the Redis key.
         * @param limit   its limit.
         * @param permits the cost (a {@link #CHECK} of one permit asks whether one is left).
         * @param mode    {@link #CHECK}, {@link #CHARGE}, {@link #ALONE} or {@link #REFUND} (a refund above the
         *                burst gives back the whole bucket).
         * @return the leg's index.
         * @throws IllegalStateException if the holder is full.
         */
        public int add(final byte[] key, final MicrosLimit limit, final long permits, final int mode)
        {
            if (count == keys.length)
            {
                throw new IllegalStateException("at most " + keys.length + " legs");
            }
            if (mode < CHECK || mode > REFUND)
            {
                throw new IllegalArgumentException("mode must be CHECK, CHARGE, ALONE or REFUND but was " + mode);
            }
            final long increment = limit.incrementUs(permits);
            keys[count] = key;
            incrementUs[count] = increment > 0 ? increment : limit.ceilingUs() + 1;
            ceilingUs[count] = limit.ceilingUs();
            intervalUs[count] = limit.emissionIntervalUs();
            modes[count] = mode;
            return count++;
        }

        /** Forget every leg and answer, to fill the holder again. */
        public void clear()
        {
            java.util.Arrays.fill(keys, 0, count, null);
            count = 0;
            cause = null;
            allConform = false;
        }

        /**
         * @return legs added.
         */
        public int count()
        {
            return count;
        }

        /**
         * @return why Redis did not decide (timeout, error), or null when it did.
         */
        public FallbackCause cause()
        {
            return cause;
        }

        /**
         * @return true if every {@link #CHECK} and {@link #CHARGE} leg conformed (so the charge legs were charged).
         */
        public boolean allConform()
        {
            return allConform;
        }

        /**
         * @param leg a leg.
         * @return true if the leg conformed (an {@link #ALONE} leg was then charged; a {@link #CHARGE} leg only if
         * {@link #allConform()}).
         */
        public boolean conforms(final int leg)
        {
            return 0 == retryAfterUs[leg];
        }

        /**
         * @param leg a leg.
         * @return true if its key held something other than a TAT (the leg refused, nothing changed).
         */
        public boolean keyError(final int leg)
        {
            return retryAfterUs[leg] < 0;
        }

        /**
         * @param leg a leg.
         * @return permits a request could take from its key after the call, {@code floor((now + tau' + T' -
         * max(TAT, now)) / T')}, at least 0.
         */
        public long remaining(final int leg)
        {
            if (keyError(leg))
            {
                return 0;
            }
            final long lagUs = Math.max(0, tatUs[leg] - nowUs);
            return Math.max(0, (ceilingUs[leg] - lagUs) / intervalUs[leg]);
        }

        /**
         * @param leg a leg.
         * @return ns until its key's bucket is full again, {@code max(0, TAT - now)}.
         */
        public long resetAfterNs(final int leg)
        {
            return keyError(leg) ? 0 : Math.max(0, tatUs[leg] - nowUs) * NS_PER_US;
        }

        /**
         * @param leg a leg.
         * @return ns until its cost could conform, when it does not ({@code 0} when it does).
         */
        public long retryAfterNs(final int leg)
        {
            return Math.max(0, retryAfterUs[leg]) * NS_PER_US;
        }

        void answer(final List<Object> reply)
        {
            if (null == reply || reply.size() != 2 + 2 * count)
            {
                cause = FallbackCause.ERROR;
                return;
            }
            nowUs = (Long)reply.get(0);
            allConform = 1L == (Long)reply.get(1);
            for (int i = 0; i < count; i++)
            {
                retryAfterUs[i] = (Long)reply.get(2 + 2 * i);
                tatUs[i] = (Long)reply.get(3 + 2 * i);
            }
        }
    }

    /**
     * Decide the legs in one round trip, without blocking.
     *
     * @param legs     the legs (at least one); answered in place.
     * @param listener receives {@code legs} exactly once, when answered or failed; at once, on the calling thread,
     *                 with {@link FallbackCause#BREAKER_OPEN} while the circuit breaker is open.
     */
    public void decideAsync(final Legs legs, final Consumer<Legs> listener)
    {
        if (!breaker.allow(System.nanoTime()))
        {
            breakerRefusals.incrementAndGet();
            legs.cause = FallbackCause.BREAKER_OPEN;
            listener.accept(legs);
            return;
        }
        final int n = legs.count;
        final byte[][] keys = java.util.Arrays.copyOf(legs.keys, n);
        final byte[][] args = new byte[3 * n + 2][];
        for (int i = 0; i < n; i++)
        {
            args[3 * i] = Long.toString(legs.incrementUs[i]).getBytes(StandardCharsets.US_ASCII);
            args[3 * i + 1] = Long.toString(legs.ceilingUs[i]).getBytes(StandardCharsets.US_ASCII);
            args[3 * i + 2] = Integer.toString(legs.modes[i]).getBytes(StandardCharsets.US_ASCII);
        }
        args[3 * n] = SERVER_TIME;
        args[3 * n + 1] = extraTtlMs;
        final long startNs = System.nanoTime();
        call(true, keys, args, timeoutNs).whenComplete((reply, error) ->
        {
            if (isNoScript(error))
            {
                scriptReloads.incrementAndGet();
                final long leftNs = timeoutNs - (System.nanoTime() - startNs);
                if (leftNs <= 0)
                {
                    finish(legs, null, new java.util.concurrent.TimeoutException(), listener);
                    return;
                }
                call(false, keys, args, leftNs).whenComplete((again, error2) -> finish(legs, again, error2, listener));
            }
            else
            {
                finish(legs, reply, error, listener);
            }
        });
    }

    private CompletableFuture<List<Object>> call(
        final boolean bySha, final byte[][] keys, final byte[][] args, final long budgetNs)
    {
        try
        {
            final RedisFuture<List<Object>> future = bySha ?
                connection.async().evalsha(SHA1_HEX, ScriptOutputType.MULTI, keys, args) :
                connection.async().eval(SOURCE, ScriptOutputType.MULTI, keys, args);
            return future.toCompletableFuture().orTimeout(budgetNs, TimeUnit.NANOSECONDS);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    private static boolean isNoScript(final Throwable error)
    {
        final Throwable cause = error instanceof CompletionException ? error.getCause() : error;
        return cause instanceof RedisNoScriptException ||
            null != cause && null != cause.getMessage() && cause.getMessage().startsWith("NOSCRIPT");
    }

    private void finish(final Legs legs, final List<Object> reply, final Throwable error,
        final Consumer<Legs> listener)
    {
        if (null == error)
        {
            try
            {
                legs.answer(reply);
            }
            catch (final RuntimeException ex)
            {
                legs.cause = FallbackCause.ERROR;
            }
        }
        else
        {
            final Throwable cause = error instanceof CompletionException ? error.getCause() : error;
            legs.cause = cause instanceof java.util.concurrent.TimeoutException ?
                FallbackCause.TIMEOUT : FallbackCause.ERROR;
        }
        if (null == legs.cause)
        {
            roundTrips.incrementAndGet();
            breaker.success(); // an answer, key errors included
        }
        else
        {
            failures.incrementAndGet();
            breaker.failure(System.nanoTime());
        }
        listener.accept(legs);
    }

    /**
     * @return calls Redis answered.
     */
    public long roundTrips()
    {
        return roundTrips.get();
    }

    /**
     * @return calls sent again by {@code EVAL} after {@code NOSCRIPT}.
     */
    public long scriptReloads()
    {
        return scriptReloads.get();
    }

    /**
     * @return calls that timed out or failed (answered by the caller's fail policy).
     */
    public long failures()
    {
        return failures.get();
    }

    /**
     * @return calls not sent because the circuit breaker was open (answered by the caller's fail policy).
     */
    public long breakerRefusals()
    {
        return breakerRefusals.get();
    }

    /**
     * @return times the circuit breaker opened.
     */
    public long breakerOpenings()
    {
        return breaker.openings();
    }

    /**
     * @return true while the circuit breaker keeps calls away from Redis (open, or one probe under way).
     */
    public boolean breakerOpen()
    {
        return breaker.isOpen();
    }
}
