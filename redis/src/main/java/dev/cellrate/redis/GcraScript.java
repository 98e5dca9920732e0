package dev.cellrate.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The Lua source of the decision ({@code gcra.lua} beside this class) and its SHA-1, as the bytes
 * {@code EVAL} and {@code EVALSHA} send. Loaded once per class.
 */
final class GcraScript
{
    static final byte[] SOURCE;
    static final byte[] SHA1_HEX;

    static
    {
        try (InputStream in = GcraScript.class.getResourceAsStream("gcra.lua"))
        {
            if (null == in)
            {
                throw new IllegalStateException("gcra.lua missing from the classpath");
            }
            SOURCE = in.readAllBytes();
            final byte[] digest = MessageDigest.getInstance("SHA-1").digest(SOURCE);
            final StringBuilder hex = new StringBuilder(40);
            for (final byte b : digest)
            {
                hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            SHA1_HEX = hex.toString().getBytes(StandardCharsets.US_ASCII);
        }
        catch (final IOException | NoSuchAlgorithmException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private GcraScript()
    {
    }

    /**
     * @return the SHA-1 as lower-case hex, as {@code SCRIPT LOAD} answers it.
     */
    static String sha1()
    {
        return new String(SHA1_HEX, StandardCharsets.US_ASCII);
    }
}
