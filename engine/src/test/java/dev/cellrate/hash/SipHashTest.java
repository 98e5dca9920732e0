package dev.cellrate.hash;

import dev.cellrate.ZeroAllocation;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The exported keyed hash: one-shot strings are their UTF-8 bytes (the reference vectors are checked through
 * this class in {@code SipHashVectorsTest}); a list of parts is the hash of each part's bytes followed by its
 * 4-byte little-endian count, for ASCII runs, two-, three- and four-byte characters, unpaired surrogates, and
 * byte ranges at every alignment; the hasher is reusable and allocates nothing.
 */
class SipHashTest
{
    private static final char[] ALPHABET = {'a', 'Z', '_', '.', '0', 'q', 'r', '\u00e9', '\u07ff', '\u0800',
        '\u4e2d', '\uffff', '\ud83d', '\ude00', '\u0000', '\u007f', '\u0080'};

    private final SipHash sip = new SipHash(0x0123456789abcdefL, 0xfedcba9876543210L);

    @Test
    void aStringIsItsUtf8Bytes()
    {
        final SplittableRandom random = new SplittableRandom(11);
        for (int n = 0; n < 3_000; n++)
        {
            final String s = randomString(random, 40);
            final byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            assertEquals(sip.hash(utf8, 0, utf8.length), sip.hash(s), s);
            assertEquals(sip.hash(utf8, 0, utf8.length), sip.hash(new StringBuilder(s)), s);
        }
    }

    @Test
    void partsHashEachPartFollowedByItsCount()
    {
        final SplittableRandom random = new SplittableRandom(7);
        final SipHash.Parts parts = sip.parts();
        for (int n = 0; n < 4_000; n++)
        {
            final int count = random.nextInt(5);
            final ByteArrayOutputStream framed = new ByteArrayOutputStream();
            final StringBuilder what = new StringBuilder();
            for (int p = 0; p < count; p++)
            {
                if (random.nextBoolean())
                {
                    final String s = randomString(random, 30);
                    parts.add(s);
                    frame(framed, s.getBytes(StandardCharsets.UTF_8));
                    what.append('"').append(s).append("\" ");
                }
                else
                {
                    final byte[] bytes = new byte[random.nextInt(30)];
                    random.nextBytes(bytes);
                    final int offset = random.nextInt(bytes.length + 1);
                    final int length = random.nextInt(bytes.length - offset + 1);
                    parts.add(bytes, offset, length);
                    frame(framed, java.util.Arrays.copyOfRange(bytes, offset, offset + length));
                    what.append(length).append(" bytes ");
                }
            }
            final byte[] input = framed.toByteArray();
            assertEquals(sip.hash(input, 0, input.length), parts.finish(), what.toString());
        }
    }

    @Test
    void aPartsCountIsAllFourOfItsBytes()
    {
        final SipHash.Parts parts = sip.parts();
        final byte[] bytes = new byte[70_000];
        new SplittableRandom(3).nextBytes(bytes);
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < 300; i++)
        {
            text.append((char)('a' + i % 26));
        }
        final ByteArrayOutputStream framed = new ByteArrayOutputStream();
        frame(framed, bytes);
        frame(framed, text.toString().getBytes(StandardCharsets.UTF_8));
        final byte[] input = framed.toByteArray();
        assertEquals(sip.hash(input, 0, input.length), parts.add(bytes, 0, bytes.length).add(text).finish());
    }

    @Test
    void finishStartsTheNextHashAndResetDiscards()
    {
        final SipHash.Parts parts = sip.parts();
        final long ab = parts.add("a").add("b").finish();
        assertEquals(ab, parts.add("a").add("b").finish(), "after finish, the hasher is empty");
        parts.add("left over");
        assertEquals(ab, parts.reset().add("a").add("b").finish(), "reset discards what was fed");
        assertEquals(ab, new SipHash(0x0123456789abcdefL, 0xfedcba9876543210L).parts().add("a").add("b").finish());
        assertNotEquals(ab, new SipHash(1, 2).parts().add("a").add("b").finish(), "another secret");
    }

    @Test
    void noTwoListsOfPartsShareTheirInput()
    {
        final SipHash.Parts parts = sip.parts();
        assertNotEquals(parts.add("ab").add("c").finish(), parts.add("a").add("bc").finish());
        assertNotEquals(parts.add("a").add("").finish(), parts.add("").add("a").finish());
        assertNotEquals(parts.add("a").finish(), parts.add("a").add("").finish());
        assertNotEquals(parts.finish(), parts.add("").finish());
        assertNotEquals(sip.hash("a"), parts.add("a").finish(), "a part is framed, a one-shot string is not");
    }

    @Test
    void aByteRangeOutsideItsArrayThrowsAndFeedsNothing()
    {
        final SipHash.Parts parts = sip.parts();
        final byte[] bytes = new byte[8];
        final long x = parts.add("x").finish();
        parts.add("x");
        assertThrows(IndexOutOfBoundsException.class, () -> parts.add(bytes, 4, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> parts.add(bytes, 0, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> parts.add(bytes, -1, 2));
        assertEquals(x, parts.finish(), "the refused ranges fed nothing");
        assertThrows(IndexOutOfBoundsException.class, () -> sip.hash(bytes, 9, 0));
    }

    @Test
    void randomSecretsDiffer()
    {
        assertNotEquals(SipHash.random().hash("key"), SipHash.random().hash("key"));
    }

    @Test
    void hashingAllocatesNothing()
    {
        final String ascii = "route:/api/v1/orders";
        final String wide = "r\u00e9sum\u00e9-\u4e2d\ud83d\ude00";
        final byte[] bytes = ascii.getBytes(StandardCharsets.UTF_8);
        final SipHash.Parts parts = sip.parts();
        // Rounds of 100,000: the one-shot hash keeps its state in a local object that compiled (C2) code holds in
        // registers; interpreted and C1 code allocate it, so the rounds must outlast a loaded machine's JIT warm-up.
        ZeroAllocation.assertAllocatesNothing("one-shot", () ->
        {
            long sum = 0;
            for (int i = 0; i < 100_000; i++)
            {
                sum += sip.hash(ascii) + sip.hash(wide) + sip.hash(bytes, i & 3, 8);
            }
            return sum;
        });
        ZeroAllocation.assertAllocatesNothing("parts", () ->
        {
            long sum = 0;
            for (int i = 0; i < 100_000; i++)
            {
                sum += parts.add(ascii).add(wide).add(bytes, i & 3, 8).finish();
            }
            return sum;
        });
    }

    private static void frame(final ByteArrayOutputStream out, final byte[] part)
    {
        out.writeBytes(part);
        for (int i = 0; i < 4; i++)
        {
            out.write(part.length >>> (8 * i));
        }
    }

    private static String randomString(final SplittableRandom random, final int maxLength)
    {
        final int length = random.nextInt(maxLength + 1);
        final boolean ascii = random.nextInt(3) == 0;
        final StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++)
        {
            b.append(ascii ? (char)('a' + random.nextInt(26)) : ALPHABET[random.nextInt(ALPHABET.length)]);
        }
        return b.toString();
    }
}
