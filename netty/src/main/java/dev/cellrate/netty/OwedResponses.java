package dev.cellrate.netty;

import dev.cellrate.Decision;

/**
 * The responses one connection owes, in request order: a ring of {@link HttpRateLimitHandler#MAX_OUTSTANDING}
 * slots from the head (the response to complete next) to the tail (the next request's slot). Each slot holds
 * what the handler did with its request (a kind), the front's {@link Decision} and, when requests are charged
 * after their response, the request's key.
 * <p>
 * Threading: the channel's event loop.
 */
final class OwedResponses
{
    /** Passed on, admitted. */
    static final byte PASS = 1;
    /** Passed on by a front in dry-run that would have rejected it. */
    static final byte PASS_WOULD_REJECT = 2;
    /** Passed on undecided and uncharged (its decoding failed). */
    static final byte PASS_UNDECIDED = 3;
    /** Rejected: this handler writes the rejection. Every kind from here on is one. */
    static final byte REJECT = 4;
    /** Rejected, answered as gRPC. */
    static final byte REJECT_GRPC = 5;
    /** No key and no fallback: answered 400. */
    static final byte BAD_REQUEST = 6;

    private static final int CAPACITY = HttpRateLimitHandler.MAX_OUTSTANDING;
    private static final int MASK = CAPACITY - 1;

    private final byte[] kinds = new byte[CAPACITY];
    private final Decision[] decisions = new Decision[CAPACITY];
    private final byte[] keys;
    private final int[] keyLengths;
    private int head;
    private int tail;

    /**
     * @param keepKeys whether each slot keeps its request's key (for a charge after the response).
     */
    OwedResponses(final boolean keepKeys)
    {
        for (int i = 0; i < CAPACITY; i++)
        {
            decisions[i] = new Decision();
        }
        this.keys = keepKeys ? new byte[CAPACITY * KeyExtractor.MAX_KEY_LENGTH] : null;
        this.keyLengths = keepKeys ? new int[CAPACITY] : null;
    }

    boolean isEmpty()
    {
        return head == tail;
    }

    boolean isFull()
    {
        return tail - head >= CAPACITY;
    }

    /** @return the decision of the next request's slot, to be filled before {@link #push}. */
    Decision nextDecision()
    {
        return decisions[tail & MASK];
    }

    /** Keep the key of the next request's slot (only with {@code keepKeys}). */
    void keepNextKey(final byte[] key, final int length)
    {
        final int slot = tail & MASK;
        System.arraycopy(key, 0, keys, slot * KeyExtractor.MAX_KEY_LENGTH, length);
        keyLengths[slot] = length;
    }

    /** Owe a response to the next request. */
    void push(final byte kind)
    {
        kinds[tail & MASK] = kind;
        tail++;
    }

    /** @return whether the head's response is a rejection this handler writes. */
    boolean headIsRejection()
    {
        return head != tail && kinds[head & MASK] >= REJECT;
    }

    byte headKind()
    {
        return kinds[head & MASK];
    }

    Decision headDecision()
    {
        return decisions[head & MASK];
    }

    /** @return {@code chars} wrapped around the head's kept key. */
    KeyChars headKey(final KeyChars chars)
    {
        final int slot = head & MASK;
        return chars.wrap(keys, slot * KeyExtractor.MAX_KEY_LENGTH, keyLengths[slot]);
    }

    /** The head's response is complete. */
    void pop()
    {
        head++;
    }
}
