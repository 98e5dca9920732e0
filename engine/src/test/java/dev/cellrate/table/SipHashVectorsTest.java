package dev.cellrate.table;

import dev.cellrate.hash.SipHash;

import java.nio.charset.StandardCharsets;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The 64 known-answer values of the SipHash-2-4 reference implementation (https://github.com/veorq/SipHash,
 * {@code vectors.h}, {@code vectors_sip64}): key bytes 00 01 .. 0f, message bytes 00 01 .. (i - 1) for
 * i = 0..63, output as a little-endian 64-bit word. Copied from two independent test suites that reproduce
 * them (majek/dump {@code siphash/main.c}, cybozu/yrmcds {@code test/siphash.cpp}), which agree value for value.
 * Each vector is checked in all three key forms (array, buffer at an offset with non-zero padding after the
 * key, and for the ASCII-only prefixes, a string), and through the exported {@link SipHash}.
 */
class SipHashVectorsTest
{
    private static final long K0 = 0x0706050403020100L;
    private static final long K1 = 0x0f0e0d0c0b0a0908L;

    private static final long[] VECTORS = {
        0x726fdb47dd0e0e31L, 0x74f839c593dc67fdL, 0x0d6c8009d9a94f5aL, 0x85676696d7fb7e2dL,
        0xcf2794e0277187b7L, 0x18765564cd99a68dL, 0xcbc9466e58fee3ceL, 0xab0200f58b01d137L,
        0x93f5f5799a932462L, 0x9e0082df0ba9e4b0L, 0x7a5dbbc594ddb9f3L, 0xf4b32f46226bada7L,
        0x751e8fbc860ee5fbL, 0x14ea5627c0843d90L, 0xf723ca908e7af2eeL, 0xa129ca6149be45e5L,
        0x3f2acc7f57c29bdbL, 0x699ae9f52cbe4794L, 0x4bc1b3f0968dd39cL, 0xbb6dc91da77961bdL,
        0xbed65cf21aa2ee98L, 0xd0f2cbb02e3b67c7L, 0x93536795e3a33e88L, 0xa80c038ccd5ccec8L,
        0xb8ad50c6f649af94L, 0xbce192de8a85b8eaL, 0x17d835b85bbb15f3L, 0x2f2e6163076bcfadL,
        0xde4daaaca71dc9a5L, 0xa6a2506687956571L, 0xad87a3535c49ef28L, 0x32d892fad841c342L,
        0x7127512f72f27cceL, 0xa7f32346f95978e3L, 0x12e0b01abb051238L, 0x15e034d40fa197aeL,
        0x314dffbe0815a3b4L, 0x027990f029623981L, 0xcadcd4e59ef40c4dL, 0x9abfd8766a33735cL,
        0x0e3ea96b5304a7d0L, 0xad0c42d6fc585992L, 0x187306c89bc215a9L, 0xd4a60abcf3792b95L,
        0xf935451de4f21df2L, 0xa9538f0419755787L, 0xdb9acddff56ca510L, 0xd06c98cd5c0975ebL,
        0xe612a3cb9ecba951L, 0xc766e62cfcadaf96L, 0xee64435a9752fe72L, 0xa192d576b245165aL,
        0x0a8787bf8ecb74b2L, 0x81b3e73d20b49b6fL, 0x7fa8220ba3b2eceaL, 0x245731c13ca42499L,
        0xb78dbfaf3a8d83bdL, 0xea1ad565322a1a0bL, 0x60e61c23a3795013L, 0x6606d7e446282b93L,
        0x6ca4ecb15c5f91e1L, 0x9f626da15c9625f3L, 0xe51b38608ef25f57L, 0x958a324ceb064572L,
    };

    @Test
    void referenceVectorsInEveryKeyForm()
    {
        assertEquals(64, VECTORS.length);
        final byte[] message = new byte[64];
        for (int i = 0; i < message.length; i++)
        {
            message[i] = (byte)i;
        }
        for (int length = 0; length < 64; length++)
        {
            final String what = "vector " + length;
            assertEquals(VECTORS[length], KeyHash.hashBytes(message, 0, length, K0, K1), what);
            // The key at offset 3, followed by 0xA5 padding: a read past the end would change the value.
            final byte[] padded = new byte[length + 3 + 16];
            java.util.Arrays.fill(padded, (byte)0xA5);
            System.arraycopy(message, 0, padded, 3, length);
            assertEquals(VECTORS[length], KeyHash.hashBytes(padded, 3, length, K0, K1), what + " padded array");
            assertEquals(VECTORS[length], KeyHash.hashBuffer(new UnsafeBuffer(padded), 3, length, K0, K1),
                what + " padded buffer");
            // The exact-size buffer: a word read past the end would throw.
            final byte[] exact = java.util.Arrays.copyOf(message, length);
            assertEquals(VECTORS[length], KeyHash.hashBuffer(new UnsafeBuffer(exact), 0, length, K0, K1),
                what + " exact buffer");
            final String ascii = new String(exact, StandardCharsets.ISO_8859_1);
            assertEquals(VECTORS[length], KeyHash.hashCharSequence(ascii, K0, K1), what + " string");
            assertEquals(VECTORS[length], KeyHash.hashCharSequence(new StringBuilder(ascii), K0, K1),
                what + " builder");
        }
    }

    @Test
    void referenceVectorsThroughTheExportedHash()
    {
        final SipHash sip = new SipHash(K0, K1);
        final byte[] message = new byte[64];
        for (int i = 0; i < message.length; i++)
        {
            message[i] = (byte)i;
        }
        for (int length = 0; length < 64; length++)
        {
            assertEquals(VECTORS[length], sip.hash(message, 0, length), "vector " + length);
            final byte[] padded = new byte[length + 5];
            java.util.Arrays.fill(padded, (byte)0xA5);
            System.arraycopy(message, 0, padded, 2, length);
            assertEquals(VECTORS[length], sip.hash(padded, 2, length), "vector " + length + " padded");
            assertEquals(VECTORS[length], sip.hash(new String(message, 0, length, StandardCharsets.ISO_8859_1)),
                "vector " + length + " string");
        }
    }
}
