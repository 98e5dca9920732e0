package dev.cellrate.layout;

import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The one gate to Agrona's {@code Unsafe}: every front, table, hash and statistics file asks it before its first
 * use of an Agrona buffer, so a JVM started without {@link #JVM_OPTION} gets one {@link IllegalStateException}
 * that names the option, from every front, whichever it builds first, instead of Agrona's bare
 * {@link IllegalAccessError} (and the {@link NoClassDefFoundError}s that follow it).
 * <p>
 * The probe runs once, when this class loads, and only this class ever lets Agrona's {@code UnsafeApi} fail to
 * load; the answer is kept, so every later check gives the same message.
 */
public final class OffHeap
{
    /** The one JVM option every JVM that runs the engine needs (Agrona 2.x reads {@code jdk.internal.misc.Unsafe}). */
    public static final String JVM_OPTION = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED";

    private static final Throwable UNREACHABLE = probe();

    private OffHeap()
    {
    }

    private static Throwable probe()
    {
        try
        {
            Class.forName("org.agrona.UnsafeApi", true, OffHeap.class.getClassLoader());
            return null;
        }
        catch (final LinkageError | ClassNotFoundException ex)
        {
            return ex;
        }
    }

    /**
     * @return true when Agrona can reach {@code Unsafe} in this JVM.
     */
    public static boolean unsafeReachable()
    {
        return reachable(UNREACHABLE);
    }

    /**
     * @param unreachable what loading Agrona's {@code UnsafeApi} threw, or null.
     * @return true iff nothing was thrown.
     */
    static boolean reachable(final Throwable unreachable)
    {
        return null == unreachable;
    }

    /**
     * @throws IllegalStateException naming {@link #JVM_OPTION} when Agrona cannot reach {@code Unsafe}.
     */
    public static void requireUnsafe()
    {
        require(UNREACHABLE);
    }

    /**
     * @param unreachable what loading Agrona's {@code UnsafeApi} threw, or null.
     * @throws IllegalStateException naming {@link #JVM_OPTION}, caused by {@code unreachable}, when not null.
     */
    static void require(final Throwable unreachable)
    {
        if (!reachable(unreachable))
        {
            throw new IllegalStateException("cellrate needs the JVM option " + JVM_OPTION + " (Agrona 2.x reads " +
                "jdk.internal.misc.Unsafe); add it to the java command line, to surefire's argLine and to forked " +
                "JVMs; executable jars can carry 'Add-Exports: java.base/jdk.internal.misc' in their manifest",
                unreachable);
        }
    }

    /**
     * Allocate an aligned direct buffer for off-heap state.
     *
     * @param length    bytes.
     * @param alignment alignment of the first byte, a power of two.
     * @return the zeroed, aligned buffer.
     * @throws IllegalStateException naming {@link #JVM_OPTION} when Agrona cannot reach {@code Unsafe}.
     */
    public static AtomicBuffer allocate(final int length, final int alignment)
    {
        requireUnsafe();
        final AtomicBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, alignment));
        buffer.verifyAlignment();
        return buffer;
    }
}
