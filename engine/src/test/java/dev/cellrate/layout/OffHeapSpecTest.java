package dev.cellrate.layout;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one gate to Agrona's {@code Unsafe}: in a JVM with the option (this one) every check passes; when loading
 * Agrona's {@code UnsafeApi} failed, the check answers one {@link IllegalStateException} that names the option and
 * carries the failure as its cause. ({@code JvmLaunchIT} starts a JVM without the option and sees that message.)
 */
final class OffHeapSpecTest
{
    @Test
    void withTheOptionEveryCheckPasses()
    {
        assertTrue(OffHeap.unsafeReachable());
        assertDoesNotThrow(OffHeap::requireUnsafe);
        assertTrue(OffHeap.reachable(null));
        assertDoesNotThrow(() -> OffHeap.require(null));
    }

    @Test
    void withoutItTheCheckNamesTheOptionAndKeepsTheCause()
    {
        final IllegalAccessError cause =
            new IllegalAccessError("class org.agrona.UnsafeApi cannot access class jdk.internal.misc.Unsafe");
        assertFalse(OffHeap.reachable(cause));
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> OffHeap.require(cause));
        assertTrue(ex.getMessage().contains(OffHeap.JVM_OPTION), ex.getMessage());
        assertSame(cause, ex.getCause());
    }
}
