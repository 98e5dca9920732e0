package dev.cellrate.spring;

/** Where a limit's state lives. */
public enum Backend
{
    /** The engine's off-heap keyed table in this process. */
    LOCAL,
    /** A Redis server shared by every instance (cellrate-redis). */
    REDIS
}
