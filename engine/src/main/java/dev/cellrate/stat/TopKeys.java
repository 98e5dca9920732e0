package dev.cellrate.stat;

import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;

import java.util.Arrays;

/**
 * Who is being limited: a fixed-size, allocation-free Space-Saving heavy-hitter sketch [1] of rejected keys
 * (long key words), striped so that concurrent rejecting threads do not queue on one lock.
 * <p>
 * Algorithm: each stripe keeps {@code k} (key, count, error) entries. Adding a key already held adds 1 to its
 * count; adding another key replaces the entry with the least count {@code m} by (key, m + 1, m). Every key
 * whose true count exceeds {@code N / k} (N = keys added to that stripe) is held, and a held key's count
 * over-estimates its true count by at most its error. Reading sums a key's counts and errors over the stripes.
 * <p>
 * Guarantees, per stripe, for adds of any weights ({@link #add(long, int, long)}; {@link #add(long)} adds 1):
 * <ul>
 *   <li>the counts sum to the weight added to the stripe ({@code W}); every key whose added weight exceeds
 *   {@code W / k} is held; a held key's count is at least its added weight and count &minus; error at most it;</li>
 *   <li>a key already held gains the weight; a new key takes the entry of least count {@code m}, the first such
 *   entry in the stripe's order (so entries fill in order, and of equal counts the earliest position is
 *   evicted), as (key, m + weight, m): a new key's count &minus; error is its weight;</li>
 *   <li>when every add has weight {@code w} (a sampled sketch: {@link LimiterStats#topKeysSampleEvery()}), every
 *   count and error is a multiple of {@code w};</li>
 *   <li>{@link #top} and {@link #read} list each held key once, counts and errors summed over the stripes, by
 *   count descending, then key ascending; any key word, 0 included, is a key.</li>
 * </ul>
 * <p>
 * Concurrency: a writer takes its stripe (its {@link ThreadStripe} &amp; mask) with one CAS of the stripe's sequence word from
 * even to odd, writes the entries with plain stores and publishes them with a release store of sequence + 2
 * (a seqlock). If its stripe is busy it tries the next ones once; if all are busy the sample is dropped and
 * counted in {@link #droppedSamples()} (never blocks). A reader copies a stripe between two acquire reads of
 * an even, unchanged sequence, so it sees a consistent stripe, in this process or another one mapping the file.
 * <p>
 * Layout of one stripe (the sketch is {@code stripes} of them back to back, {@link #length(int, int)} bytes):
 * <pre>
 *  +---------------------------------------------------------------+
 *  |  Sequence (long, odd while a writer holds the stripe)         |  0
 *  +---------------------------------------------------------------+
 *  |  Dropped samples (long, stripe 0 only)                        |  8
 *  +---------------------------------------------------------------+
 *  |  Padding to 64 bytes                                        ...
 *  +---------------------------------------------------------------+
 *  |  Entry 0: Key (long) | Count (long) | Error (long)            |  ENTRIES_OFFSET
 *  |  ... k entries of ENTRY_LENGTH bytes, padded to 64 bytes    ...
 *  +---------------------------------------------------------------+
 * </pre>
 * An entry with count 0 is empty. [1] Metwally, Agrawal, El Abbadi, "Efficient Computation of Frequent and
 * Top-k Elements in Data Streams", ICDT 2005.
 */
public final class TopKeys
{
    static final int SEQUENCE_OFFSET = 0;
    static final int DROPPED_OFFSET = SEQUENCE_OFFSET + BitUtil.SIZE_OF_LONG;
    static final int ENTRIES_OFFSET = BitUtil.CACHE_LINE_LENGTH;
    static final int ENTRY_KEY_OFFSET = 0;
    static final int ENTRY_COUNT_OFFSET = ENTRY_KEY_OFFSET + BitUtil.SIZE_OF_LONG;
    static final int ENTRY_ERROR_OFFSET = ENTRY_COUNT_OFFSET + BitUtil.SIZE_OF_LONG;
    static final int ENTRY_LENGTH = ENTRY_ERROR_OFFSET + BitUtil.SIZE_OF_LONG;
    private static final int MAX_READ_ATTEMPTS = 1 << 20;

    /** Largest k. */
    public static final int MAX_K = 256;

    private final AtomicBuffer buffer;
    private final int offset;
    private final int k;
    private final int stripeMask;
    private final int stripeLength;

    /**
     * A writer over a zeroed region of {@link #length(int, int)} bytes.
     *
     * @param buffer  the region's buffer.
     * @param offset  the region's offset (8-byte aligned).
     * @param k       entries per stripe, in [1, {@link #MAX_K}].
     * @param stripes a power of two.
     */
    TopKeys(final AtomicBuffer buffer, final int offset, final int k, final int stripes)
    {
        this.buffer = buffer;
        this.offset = offset;
        this.k = k;
        this.stripeMask = stripes - 1;
        this.stripeLength = stripeLength(k);
    }

    /**
     * @param k       entries per stripe.
     * @param stripes stripes.
     * @return the region length in bytes.
     */
    static int length(final int k, final int stripes)
    {
        return stripeLength(k) * stripes;
    }

    private static int stripeLength(final int k)
    {
        return BitUtil.align(ENTRIES_OFFSET + k * ENTRY_LENGTH, BitUtil.CACHE_LINE_LENGTH);
    }

    /**
     * Count one occurrence of {@code key}. Allocation-free, lock-free (drops the sample if every stripe is busy).
     *
     * @param key the key word.
     */
    void add(final long key)
    {
        add(key, ThreadStripe.current(), 1);
    }

    /**
     * Count {@code weight} occurrences of {@code key} (a sample standing for {@code weight} rejections),
     * starting at stripe {@code firstStripe} (the caller's {@link ThreadStripe}, already read). Weighted
     * Space-Saving: a held key gains {@code weight}; a new key replaces the least entry m by
     * (key, m + weight, m). Allocation-free, lock-free (drops the sample if every stripe is busy).
     *
     * @param key         the key word.
     * @param firstStripe the stripe to try first (masked here).
     * @param weight      occurrences the sample stands for, &ge; 1.
     */
    void add(final long key, final int firstStripe, final long weight)
    {
        final AtomicBuffer buffer = this.buffer;
        for (int i = 0; i <= stripeMask; i++)
        {
            final int base = offset + ((firstStripe + i) & stripeMask) * stripeLength;
            final long sequence = buffer.getLongVolatile(base + SEQUENCE_OFFSET);
            if (0 == (sequence & 1) && buffer.compareAndSetLong(base + SEQUENCE_OFFSET, sequence, sequence + 1))
            {
                update(buffer, base + ENTRIES_OFFSET, key, weight);
                buffer.putLongRelease(base + SEQUENCE_OFFSET, sequence + 2);
                return;
            }
        }
        buffer.getAndAddLong(offset + DROPPED_OFFSET, weight);
    }

    private void update(final AtomicBuffer buffer, final int entries, final long key, final long weight)
    {
        int minIndex = 0;
        long minCount = Long.MAX_VALUE;
        for (int i = 0, entry = entries; i < k; i++, entry += ENTRY_LENGTH)
        {
            final long count = buffer.getLong(entry + ENTRY_COUNT_OFFSET);
            if (count > 0 && buffer.getLong(entry + ENTRY_KEY_OFFSET) == key)
            {
                buffer.putLong(entry + ENTRY_COUNT_OFFSET, count + weight);
                return;
            }
            if (count < minCount)
            {
                minCount = count;
                minIndex = i;
            }
        }
        final int entry = entries + minIndex * ENTRY_LENGTH;
        buffer.putLong(entry + ENTRY_KEY_OFFSET, key);
        buffer.putLong(entry + ENTRY_ERROR_OFFSET, minCount);
        buffer.putLong(entry + ENTRY_COUNT_OFFSET, minCount + weight);
    }

    /**
     * @return occurrences dropped because every stripe was busy (samples times their weight).
     */
    public long droppedSamples()
    {
        return buffer.getLongVolatile(offset + DROPPED_OFFSET);
    }

    /**
     * @return entries per stripe.
     */
    public int k()
    {
        return k;
    }

    /**
     * @return stripes.
     */
    int stripes()
    {
        return stripeMask + 1;
    }

    /**
     * @return the region's offset in its buffer.
     */
    int offset()
    {
        return offset;
    }

    /**
     * @param maxEntries most entries to return (none if {@code <= 0}).
     * @return the heaviest keys, by count descending, then key ascending (a reader's snapshot; allocates).
     */
    public Entry[] top(final int maxEntries)
    {
        return read(buffer, offset, k, stripeMask + 1, maxEntries);
    }

    /**
     * Read a sketch (this process or another one mapping the file): each stripe under its seqlock, merged.
     *
     * @param buffer     the region's buffer.
     * @param offset     the region's offset.
     * @param k          entries per stripe.
     * @param stripes    stripes.
     * @param maxEntries most entries to return.
     * @return the heaviest keys, by count descending, then key ascending. Allocates (reader side only).
     */
    static Entry[] read(
        final AtomicBuffer buffer, final int offset, final int k, final int stripes, final int maxEntries)
    {
        checkDescriptor(buffer.capacity(), offset, k, stripes, "?");
        final int stripeLength = stripeLength(k);
        final long[] keys = new long[k * stripes];
        final long[] counts = new long[k * stripes];
        final long[] errors = new long[k * stripes];
        final long[] stripeKeys = new long[k];
        final long[] stripeCounts = new long[k];
        final long[] stripeErrors = new long[k];
        int size = 0;
        for (int s = 0; s < stripes; s++)
        {
            final int base = offset + s * stripeLength;
            // A writer holds a stripe for a few stores; the cap only guards against a writer process that died
            // holding it: then the last copy, of this stripe, is used as it is.
            for (int attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++)
            {
                final long before = buffer.getLongVolatile(base + SEQUENCE_OFFSET);
                for (int i = 0; i < k; i++)
                {
                    final int entry = base + ENTRIES_OFFSET + i * ENTRY_LENGTH;
                    stripeKeys[i] = buffer.getLong(entry + ENTRY_KEY_OFFSET);
                    stripeCounts[i] = buffer.getLong(entry + ENTRY_COUNT_OFFSET);
                    stripeErrors[i] = buffer.getLong(entry + ENTRY_ERROR_OFFSET);
                }
                java.lang.invoke.VarHandle.acquireFence();
                if (0 == (before & 1) && buffer.getLongVolatile(base + SEQUENCE_OFFSET) == before)
                {
                    break;
                }
                Thread.onSpinWait();
            }
            for (int i = 0; i < k; i++)
            {
                if (stripeCounts[i] <= 0)
                {
                    continue;
                }
                int j = 0;
                while (j < size && keys[j] != stripeKeys[i])
                {
                    j++;
                }
                if (j == size)
                {
                    keys[size] = stripeKeys[i];
                    size++;
                }
                counts[j] += stripeCounts[i];
                errors[j] += stripeErrors[i];
            }
        }
        final Entry[] entries = new Entry[size];
        for (int i = 0; i < size; i++)
        {
            entries[i] = new Entry(keys[i], counts[i], errors[i]);
        }
        Arrays.sort(entries, (a, b) -> a.count != b.count ? Long.compare(b.count, a.count) : Long.compare(a.key, b.key));
        return Arrays.copyOf(entries, Math.min(size, Math.max(0, maxEntries)));
    }

    /**
     * The key a string key is counted under in a sketch (what {@code ObservedKeyedLimiter} feeds and
     * {@link #top} lists for it): the 64-bit FNV-1a hash of its UTF-16 chars.
     *
     * @param key a key.
     * @return its sketch key.
     */
    public static long keyOf(final CharSequence key)
    {
        long hash = 0xcbf29ce484222325L;
        for (int i = 0, length = key.length(); i < length; i++)
        {
            hash = (hash ^ key.charAt(i)) * 0x100000001b3L;
        }
        return hash;
    }

    /**
     * Check a sketch's descriptor as read from a file, before anything is sized by it.
     *
     * @param regionLength the sketch region's length, bytes.
     * @param offset       the sketch's offset in the region.
     * @param k            entries per stripe.
     * @param stripes      stripes.
     * @param limiter      the limiter's name, for the message.
     * @throws IllegalStateException naming the field, its value and the limiter when the descriptor is corrupt.
     */
    static void checkDescriptor(
        final int regionLength, final int offset, final int k, final int stripes, final String limiter)
    {
        if (k < 1 || k > MAX_K)
        {
            throw corrupt("k " + k + " outside [1, " + MAX_K + "]", limiter);
        }
        if (stripes < 1 || stripes > 64 || !BitUtil.isPowerOfTwo(stripes))
        {
            throw corrupt("stripes " + stripes + " not a power of two in [1, 64]", limiter);
        }
        if (offset < 0 || 0 != (offset & (BitUtil.SIZE_OF_LONG - 1)) ||
            (long)offset + length(k, stripes) > regionLength)
        {
            throw corrupt("offset " + offset + " of a " + length(k, stripes) + "-byte sketch outside the " +
                regionLength + "-byte sketch region (or not 8-byte aligned)", limiter);
        }
    }

    private static IllegalStateException corrupt(final String what, final String limiter)
    {
        return new IllegalStateException("corrupt statistics file: top-keys sketch of limiter '" + limiter + "': " +
            what);
    }

    /**
     * One heavy hitter: its key word, estimated count (&ge; true count) and the bound on the over-estimate.
     *
     * @param key   the key word.
     * @param count estimated rejections.
     * @param error the estimate exceeds the true count by at most this much.
     */
    public record Entry(long key, long count, long error)
    {
    }
}
