package dev.cellrate.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Netty's leak detector at PARANOID, with every report recorded so a test can assert that none was made.
 * {@link #install()} must run before the first buffer is allocated (every test class calls it statically).
 */
final class LeakCheck
{
    static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static boolean installed;

    private LeakCheck()
    {
    }

    static synchronized void install()
    {
        if (installed)
        {
            return;
        }
        installed = true;
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory()
        {
            @SuppressWarnings("deprecation")
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(
                final Class<T> resource, final int samplingInterval, final long maxActive)
            {
                return new ResourceLeakDetector<T>(resource, samplingInterval, maxActive)
                {
                    protected void reportTracedLeak(final String resourceType, final String records)
                    {
                        LEAKS.add(resourceType + records);
                        super.reportTracedLeak(resourceType, records);
                    }

                    protected void reportUntracedLeak(final String resourceType)
                    {
                        LEAKS.add(resourceType);
                        super.reportUntracedLeak(resourceType);
                    }
                };
            }
        });
    }

    /**
     * Collect garbage and allocate tracked buffers so the detector drains its queue, then assert no report.
     */
    static void assertNoLeaks()
    {
        for (int i = 0; i < 5; i++)
        {
            System.gc();
            try
            {
                Thread.sleep(20);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            for (int j = 0; j < 100; j++)
            {
                final ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
                b.release();
            }
        }
        assertEquals(List.of(), LEAKS, "Netty leak reports");
    }
}
