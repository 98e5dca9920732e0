/**
 * The single-cell composite: a front that charges several GCRA legs all or nothing
 * ({@link dev.cellrate.composite.CompositeRateLimiter}; the keyed one is
 * {@link dev.cellrate.KeyedCompositeRateLimiter}); the loop that refunds a leg is {@link
 * dev.cellrate.gcra.Refund} (not exported).
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.composite;

