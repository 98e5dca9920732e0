/**
 * A concurrency limit (front {@link dev.cellrate.concurrency.ConcurrencyLimiter}) and its ticket words (decision
 * {@link dev.cellrate.concurrency.Tickets}).
 * <p>
 * Memory ordering: the engine convention of {@link dev.cellrate} (package documentation).
 */
package dev.cellrate.concurrency;
