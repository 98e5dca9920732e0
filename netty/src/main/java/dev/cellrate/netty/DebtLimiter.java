package dev.cellrate.netty;

import dev.cellrate.Limit;

/**
 * Charge-after-the-response: what the handler needs from the engine's {@code peek} and {@code debit}
 * ({@link EngineDebt} implements it on the engine's keyed front; {@link KeyedDebt} is a bucketed alternative). Keys are byte ranges; every method is allocation-free
 * and never throws on odd times.
 */
public interface DebtLimiter
{
    /**
     * What one permit would get now, charging nothing.
     *
     * @param key    key bytes.
     * @param offset first byte.
     * @param length byte count.
     * @param nowNs  the time, ns.
     * @return {@link dev.cellrate.Result#ADMITTED} if the key is not in debt, else a positive retry-after in ns.
     */
    long peek(byte[] key, int offset, int length, long nowNs);

    /**
     * Charge {@code permits} after the fact, whether or not they conform; the debt is bounded by the
     * implementation.
     *
     * @param key     key bytes.
     * @param offset  first byte.
     * @param length  byte count.
     * @param permits the cost, &ge; 1 (0 or less charges nothing).
     * @param nowNs   the time, ns.
     * @return {@link dev.cellrate.Result#ADMITTED} once charged, or a negative {@link dev.cellrate.Result} code
     * when nothing could be charged (e.g. {@link dev.cellrate.Result#TABLE_FULL}).
     */
    long debit(byte[] key, int offset, int length, long permits, long nowNs);

    /**
     * @return ns until the key is back to a full budget (0 if it is), for the {@code RateLimit} field.
     * @param key    key bytes.
     * @param offset first byte.
     * @param length byte count.
     * @param nowNs  the time, ns.
     */
    long resetAfterNs(byte[] key, int offset, int length, long nowNs);

    /**
     * @return the limit.
     */
    Limit limit();
}
