package dev.cellrate;

/**
 * A {@link KeyedLimiter} whose cells are GCRA cells, so it can also {@code peek} and {@code debit} per key, with
 * the same meaning and the same debt bound as {@link DebitLimiter}. A key that has no cell peeks as a full
 * bucket (whether a cell could be claimed for it is not checked).
 */
public interface KeyedDebitLimiter extends KeyedLimiter
{
    /**
     * @param key     the key.
     * @param permits the cost.
     * @param nowNs   the time, ns.
     * @return what {@code tryAcquire(key, permits, nowNs)} would answer for a present key, without charging.
     */
    long peek(long key, long permits, long nowNs);

    /**
     * @param key     the key (hashed; not retained).
     * @param permits the cost.
     * @param nowNs   the time, ns.
     * @return as {@link #peek(long, long, long)}.
     */
    long peek(CharSequence key, long permits, long nowNs);

    /**
     * @param key     the key's bytes (hashed; not retained): the same key as its {@code CharSequence} form.
     * @param offset  the first byte.
     * @param length  the number of bytes.
     * @param permits the cost.
     * @param nowNs   the time, ns.
     * @return as {@link #peek(long, long, long)}.
     * @throws IndexOutOfBoundsException if the range is outside {@code key} (a caller's bug, not a decision).
     */
    long peek(byte[] key, int offset, int length, long permits, long nowNs);

    /**
     * Charge {@code permits} to the key after the fact, into debt of at most one burst (see
     * {@link DebitLimiter#debit(long, long)}).
     *
     * @param key     the key.
     * @param permits the cost, &ge; 1.
     * @param nowNs   the time, ns.
     * @return {@link Result#ADMITTED} if one permit would still be admitted after the charge, else the ns until
     * it would; {@link Result#NEVER} for a cost below 1; a table-full code of the keyed range if no cell could
     * be claimed.
     */
    long debit(long key, long permits, long nowNs);

    /**
     * @param key     the key (hashed; not retained).
     * @param permits the cost, &ge; 1.
     * @param nowNs   the time, ns.
     * @return as {@link #debit(long, long, long)}.
     */
    long debit(CharSequence key, long permits, long nowNs);

    /**
     * @param key     the key's bytes (hashed; not retained): the same key as its {@code CharSequence} form.
     * @param offset  the first byte.
     * @param length  the number of bytes.
     * @param permits the cost, &ge; 1.
     * @param nowNs   the time, ns.
     * @return as {@link #debit(long, long, long)}.
     * @throws IndexOutOfBoundsException if the range is outside {@code key} (a caller's bug, not a decision).
     */
    long debit(byte[] key, int offset, int length, long permits, long nowNs);

    /**
     * @param key     the key.
     * @param permits the cost.
     * @return as {@link #peek(long, long, long)}, by the clock.
     */
    default long peek(final long key, final long permits)
    {
        return peek(key, permits, clock().nanoTime());
    }

    /**
     * @param key     the key.
     * @param permits the cost.
     * @return as {@link #debit(long, long, long)}, by the clock.
     */
    default long debit(final long key, final long permits)
    {
        return debit(key, permits, clock().nanoTime());
    }
}
