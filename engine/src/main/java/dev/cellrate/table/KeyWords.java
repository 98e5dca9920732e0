package dev.cellrate.table;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;

/**
 * The key words of a {@link SlotTable}: long keys through the seeded bijective mixer, byte and character keys
 * through SipHash under the table's 128-bit secret ({@link KeyHash}). A key word is all the table ever sees of
 * a key. Immutable; allocation-free; any thread.
 */
abstract class KeyWords
{
    private final long secret0;
    private final long secret1;
    private final long seed;

    /**
     * @param secret0 the secret's first word (SipHash's {@code k0}).
     * @param secret1 the secret's second word.
     */
    KeyWords(final long secret0, final long secret1)
    {
        this.secret0 = secret0;
        this.secret1 = secret1;
        this.seed = KeyHash.longKeySeed(secret0, secret1);
    }

    /**
     * @param key a long key.
     * @return its key word (bijective, see {@link KeyHash#mixLong}).
     */
    public long keyWord(final long key)
    {
        return KeyHash.mixLong(key, seed);
    }

    /**
     * @param key characters, hashed as UTF-8.
     * @return its key word (SipHash-2-4 under the table secret, see {@link KeyHash#hashCharSequence}).
     */
    public long keyWord(final CharSequence key)
    {
        return KeyHash.hashCharSequence(key, secret0, secret1);
    }

    /**
     * @param key    bytes.
     * @param offset first byte.
     * @param length byte count.
     * @return its key word (SipHash-2-4 under the table secret, see {@link KeyHash#hashBytes}).
     * @throws IndexOutOfBoundsException if the range is not inside the array (a negative length included).
     */
    public long keyWord(final byte[] key, final int offset, final int length)
    {
        return KeyHash.hashBytes(key, offset, length, secret0, secret1);
    }

    /**
     * @param key    buffer.
     * @param offset first byte.
     * @param length byte count.
     * @return its key word (SipHash-2-4 under the table secret, see {@link KeyHash#hashBuffer}).
     * @throws IndexOutOfBoundsException if the range is not inside the buffer (a negative length included).
     */
    public long keyWord(final DirectBuffer key, final int offset, final int length)
    {
        return KeyHash.hashBuffer(key, offset, length, secret0, secret1);
    }

    /**
     * The key words of a batch of byte keys held in one array: key i is
     * {@code keys[offsets[i] .. offsets[i] + lengths[i])}; every range is checked before it is read.
     *
     * @param keys     the array.
     * @param offsets  first byte of each key.
     * @param lengths  byte count of each key.
     * @param count    how many keys (the caller checked it fits {@code offsets}, {@code lengths}, {@code wordsOut}).
     * @param wordsOut receives {@link #keyWord(byte[], int, int)} of key i at index i.
     * @throws IndexOutOfBoundsException if a key's range is not inside the array.
     */
    public void keyWords(
        final byte[] keys, final int[] offsets, final int[] lengths, final int count, final long[] wordsOut)
    {
        keyWords(keys, BufferUtil.ARRAY_BASE_OFFSET, keys.length, offsets, lengths, count, wordsOut);
    }

    /**
     * As {@link #keyWords(byte[], int[], int[], int, long[])} for keys in a buffer.
     *
     * @param keys     the buffer.
     * @param offsets  first byte of each key.
     * @param lengths  byte count of each key.
     * @param count    how many keys (the caller checked it fits {@code offsets}, {@code lengths}, {@code wordsOut}).
     * @param wordsOut receives {@link #keyWord(DirectBuffer, int, int)} of key i at index i.
     * @throws IndexOutOfBoundsException if a key's range is not inside {@code [0, capacity)}.
     */
    public void keyWords(
        final DirectBuffer keys, final int[] offsets, final int[] lengths, final int count, final long[] wordsOut)
    {
        keyWords(keys.byteArray(), keys.addressOffset(), keys.capacity(), offsets, lengths, count, wordsOut);
    }

    private void keyWords(
        final Object base, final long address, final int capacity, final int[] offsets, final int[] lengths,
        final int count, final long[] wordsOut)
    {
        for (int i = 0; i < count; i++)
        {
            wordsOut[i] = KeyHash.hashRange(base, address, capacity, offsets[i], lengths[i], secret0, secret1);
        }
    }


    /**
     * @return the seed of the long-key mixer ({@link KeyHash#longKeySeed} of the secret: it reveals nothing of
     * the secret that keys the byte hash, which has no getter).
     */
    public long seed()
    {
        return seed;
    }
}
