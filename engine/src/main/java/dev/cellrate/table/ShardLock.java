package dev.cellrate.table;

/**
 * The insert lock of a {@link SlotTable} whose buffer other processes share ({@link SharedTable}): the lock
 * word at {@link TableLayout#LOCK_OFFSET} of each shard header, taken and released by whatever protocol the
 * sharing processes agree on (one that survives a holder that dies inside its critical section). A table of one
 * process uses its own spin-lock instead.
 */
public interface ShardLock
{
    /**
     * Take the lock of the shard whose header is at {@code header}; returns holding it.
     *
     * @param header the shard header's offset.
     */
    void lock(int header);

    /**
     * Release the lock of the shard whose header is at {@code header}, held by the caller.
     *
     * @param header the shard header's offset.
     */
    void unlock(int header);
}
