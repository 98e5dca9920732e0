package dev.cellrate;

/**
 * What a keyed front's table counts, for monitoring ({@code StatSampler}, the Micrometer binder): every keyed
 * front of the engine implements it. Reads are plain counter reads: cheap, thread-safe, allocation-free, and
 * approximate while decisions run.
 */
public interface TableCounters
{
    /**
     * @return keys that hold a cell now.
     */
    long liveKeys();

    /**
     * @return idle cells reclaimed for new keys or by a sweep.
     */
    long evictions();

    /**
     * @return new keys that found no cell (the table-full policy answered them).
     */
    long tableFullEvents();

    /**
     * @return decisions that lost a CAS and decided again (contention on one key).
     */
    long casRetries();
}
