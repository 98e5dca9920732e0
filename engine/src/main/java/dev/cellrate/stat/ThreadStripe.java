package dev.cellrate.stat;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The calling thread's stripe number: assigned round-robin the first time a thread records (one boxed int per
 * thread, never again), so up to {@code stripes} recording threads never share a stripe, which thread ids
 * ({@code id & mask}) cannot promise. Reading it is one {@link ThreadLocal} lookup; no allocation.
 */
final class ThreadStripe
{
    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final ThreadLocal<Integer> STRIPE = ThreadLocal.withInitial(NEXT::getAndIncrement);

    private ThreadStripe()
    {
    }

    /**
     * @return this thread's stripe number (mask it with the stripe count).
     */
    static int current()
    {
        return STRIPE.get();
    }
}
