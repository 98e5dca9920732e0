package dev.cellrate.release;

/**
 * What a {@link ReleaseAgent} does with each item: exactly one of the two methods is called exactly once for
 * every item whose submission returned a success code, always on the agent's thread.
 *
 * @param <E> the caller's item type.
 */
public interface ReleaseHandler<E>
{
    /**
     * The item is due: send it. Called on the agent thread, in due-time order (ties in submission order).
     *
     * @param item   the item as submitted.
     * @param dueNs  its due time.
     * @param nowNs  the agent clock's reading in the duty cycle that released it ({@code nowNs - dueNs} is
     *               the lateness as the agent saw it, &ge; 0).
     */
    void onRelease(E item, long dueNs, long nowNs);

    /**
     * The agent closed before the item was due: it is handed back unreleased (the caller decides whether to
     * send it anyway, fail it, or refund it). Called on the closing agent thread, in due-time order.
     *
     * @param item  the item as submitted.
     * @param dueNs its due time.
     */
    void onHandBack(E item, long dueNs);
}
