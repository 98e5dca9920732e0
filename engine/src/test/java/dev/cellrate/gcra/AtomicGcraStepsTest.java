package dev.cellrate.gcra;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The steps of {@link AtomicGcra}'s code-only loop are trivial methods, so that C2 inlines them wherever the loop
 * is inlined, whatever the profile says. The loop's bytecode, and so its branch profile, is shared by every front:
 * once a shaper has rejected in a JVM, the rejection branch of a limiter that has only ever admitted is compiled
 * (not left to an uncommon trap), and C2 does not inline a non-trivial callee that has never run ("never
 * executed"). A call left in the decision's compiled loop makes every value live across it stay on the stack, and
 * the admit then cost 1.04-1.13x its floor instead of 0.98-1.03x ({@code tools/lab/admit-modes.sh} with
 * {@code FIRST=shapeReject} against {@code none}). HotSpot inlines a method of at most {@code MaxTrivialSize} (6) bytecode bytes without
 * asking its profile.
 */
class AtomicGcraStepsTest
{
    /** HotSpot's default {@code -XX:MaxTrivialSize}. */
    private static final int MAX_TRIVIAL_SIZE = 6;

    @Test
    void theCodeLoopsStepsAreTrivialSoTheJitInlinesThemEvenWhereTheyNeverRan() throws IOException
    {
        final Map<String, Integer> codes = codeLengths("dev/cellrate/gcra/AtomicGcra$Codes.class");
        final Map<String, Integer> loop = codeLengths("dev/cellrate/gcra/CellLoop.class");
        for (final String step : new String[] {"admitted", "rejected", "stale"})
        {
            final Integer length = codes.containsKey(step) ? codes.get(step) : loop.get(step);
            assertNotNull(length, step);
            assertTrue(length <= MAX_TRIVIAL_SIZE,
                step + " of the code-only loop is " + length + " bytecode bytes, over " + MAX_TRIVIAL_SIZE);
        }
    }

    /** The bytecode length of each method of a class file that has code, by name (the last one of a name). */
    private static Map<String, Integer> codeLengths(final String resource) throws IOException
    {
        try (InputStream stream = AtomicGcraStepsTest.class.getClassLoader().getResourceAsStream(resource))
        {
            assertNotNull(stream, resource);
            final DataInputStream in = new DataInputStream(stream);
            in.readInt(); // magic
            in.readInt(); // minor and major version
            final int poolCount = in.readUnsignedShort();
            final String[] utf8 = new String[poolCount];
            for (int i = 1; i < poolCount; i++)
            {
                final int tag = in.readUnsignedByte();
                switch (tag)
                {
                    case 1: utf8[i] = in.readUTF(); break;
                    case 7: case 8: case 16: case 19: case 20: in.skipBytes(2); break;
                    case 15: in.skipBytes(3); break;
                    case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: in.skipBytes(4); break;
                    case 5: case 6: in.skipBytes(8); i++; break;
                    default: throw new IOException("constant pool tag " + tag + " in " + resource);
                }
            }
            in.skipBytes(6); // access, this, super
            in.skipBytes(2 * in.readUnsignedShort()); // interfaces
            final int fields = in.readUnsignedShort();
            for (int f = 0; f < fields; f++)
            {
                in.skipBytes(6);
                skipAttributes(in);
            }
            final Map<String, Integer> lengths = new HashMap<>();
            final int methods = in.readUnsignedShort();
            for (int m = 0; m < methods; m++)
            {
                in.skipBytes(2);
                final String name = utf8[in.readUnsignedShort()];
                in.skipBytes(2);
                final int attributes = in.readUnsignedShort();
                for (int a = 0; a < attributes; a++)
                {
                    final String attribute = utf8[in.readUnsignedShort()];
                    final int length = in.readInt();
                    if ("Code".equals(attribute))
                    {
                        in.skipBytes(4); // max stack, max locals
                        lengths.put(name, in.readInt());
                        in.skipBytes(length - 8);
                    }
                    else
                    {
                        in.skipBytes(length);
                    }
                }
            }
            return lengths;
        }
    }

    private static void skipAttributes(final DataInputStream in) throws IOException
    {
        final int attributes = in.readUnsignedShort();
        for (int a = 0; a < attributes; a++)
        {
            in.skipBytes(2);
            in.skipBytes(in.readInt());
        }
    }
}
