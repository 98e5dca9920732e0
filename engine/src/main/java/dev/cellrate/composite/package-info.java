/**
 * Fronts that charge several GCRA legs all or nothing ({@link dev.cellrate.composite.CompositeRateLimiter}, {@link
 * dev.cellrate.composite.KeyedCompositeRateLimiter}) and the loop that refunds a leg ({@link
 * dev.cellrate.composite.Refund}, layer: loop).
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.composite;
