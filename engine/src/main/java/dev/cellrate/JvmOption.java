package dev.cellrate;

/**
 * The one JVM option every JVM that runs the engine needs: Agrona 2.x reads {@code jdk.internal.misc.Unsafe}.
 * A compile-time constant, so JMH's {@code @Fork(jvmArgsAppend = JvmOption.ADD_EXPORTS)} and launchers can use
 * it. On the module path the target is {@code org.agrona} instead of {@code ALL-UNNAMED}. Without it, the first
 * front built throws an {@link IllegalStateException} that names it.
 */
public final class JvmOption
{
    /** {@code --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED}. */
    public static final String ADD_EXPORTS = dev.cellrate.layout.OffHeap.JVM_OPTION;

    private JvmOption()
    {
    }
}
