package dev.cellrate.bench;

/**
 * One keyed limiter under {@link KeyedBenchmark}: a key (long or string) and a time in, a decision out. Every
 * target is populated with all keys before measuring, so the benchmark measures lookups of present keys and
 * the admit path (every decision admits and writes), not inserts.
 * <p>
 * Long keys arrive both as a primitive and pre-boxed: cellrate and the baseline use the primitive, the
 * map-based peers the box (pre-boxing spares the peers the {@code Long.valueOf} allocation a real caller
 * would pay, so their numbers are, if anything, flattered).
 */
abstract class KeyedTarget
{
    /**
     * @param key       the long key.
     * @param boxedKey  the same key boxed, or null for targets that said {@link #wantsBoxedKeys()} false.
     * @param nowNs     the caller's time (targets with their own clock ignore it).
     * @return 0 if admitted, non-zero if rejected.
     */
    abstract long decideLong(long key, Long boxedKey, long nowNs);

    /**
     * @param key   the string key.
     * @param nowNs the caller's time (targets with their own clock ignore it).
     * @return 0 if admitted, non-zero if rejected.
     */
    abstract long decideString(String key, long nowNs);

    /**
     * A key that arrives as bytes (from a request buffer). The default, for the map-based peers, is what their
     * users must do: make a {@code String} of the bytes (the map needs a key object), then decide on it; the
     * allocation and the string's hash are part of their cost.
     *
     * @param bytes  the array holding the key.
     * @param offset first byte.
     * @param length byte count.
     * @param nowNs  the caller's time (targets with their own clock ignore it).
     * @return 0 if admitted, non-zero if rejected.
     */
    long decideBytes(final byte[] bytes, final int offset, final int length, final long nowNs)
    {
        return decideString(new String(bytes, offset, length, java.nio.charset.StandardCharsets.ISO_8859_1), nowNs);
    }

    /**
     * @return true if {@link #decideLong(long, Long, long)} needs the boxed key.
     */
    boolean wantsBoxedKeys()
    {
        return true;
    }

    /**
     * @return bytes of off-heap memory this target holds (0 for heap-only peers).
     */
    long offHeapBytes()
    {
        return 0;
    }

    /**
     * @return the address of the off-heap memory this target holds, or 0 (for {@link Smaps}).
     */
    long offHeapAddress()
    {
        return 0;
    }
}
