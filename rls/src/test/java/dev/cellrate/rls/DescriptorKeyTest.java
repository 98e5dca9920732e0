package dev.cellrate.rls;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import static dev.cellrate.rls.Rls.d;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A descriptor's 64-bit identity hashes each string's UTF-8 bytes, each followed by its length, encoded in place:
 * the same hash as hashing {@code getBytes(UTF_8)} so framed, for ASCII, two- and three-byte characters,
 * surrogate pairs and unpaired surrogates.
 */
class DescriptorKeyTest
{
    private static final char[] ALPHABET = { 'a', 'Z', '_', '.', '\u00e9', '\u07ff', '\u0800', '\u4e2d', '\uffff',
        '\ud83d', '\ude00', '\u0000' };

    @Test
    void theInPlaceEncodingHashesTheUtf8Bytes()
    {
        final DescriptorKey key = new DescriptorKey(0x0123456789abcdefL, 0xfedcba9876543210L);
        final SplittableRandom random = new SplittableRandom(7);
        for (int n = 0; n < 2_000; n++)
        {
            final String[] s = new String[3];
            for (int j = 0; j < 3; j++)
            {
                final StringBuilder b = new StringBuilder();
                final int length = random.nextInt(12);
                for (int i = 0; i < length; i++)
                {
                    b.append(ALPHABET[random.nextInt(ALPHABET.length)]);
                }
                s[j] = b.toString();
            }
            assertEquals(
                key.hashOfBytes(s[0].getBytes(StandardCharsets.UTF_8), s[1].getBytes(StandardCharsets.UTF_8),
                    s[2].getBytes(StandardCharsets.UTF_8)),
                key.hash(s[0], d(s[1], s[2]), null), s[0] + "|" + s[1] + "|" + s[2]);
        }
        assertNotEquals(key.hash("d", d("ab", "c"), null), key.hash("d", d("a", "bc"), null), "length-framed");
    }
}
