package dev.cellrate.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpRequest;

/**
 * Writes the rate-limit key of a request into a caller's buffer. Implementations must not allocate per
 * request (cache what is per connection on the channel, see {@link ClientAddressKey}) and must never throw
 * on bad input: a request with no usable key answers {@link #NO_KEY} and gets the handler's fallback.
 * <p>
 * Threading: one instance may serve every channel; {@link #extract} runs on the channel's event loop.
 */
public interface KeyExtractor
{
    /** Returned when the request carries no usable key (no address, malformed or oversize header). */
    int NO_KEY = -1;

    /** Size of the buffer handed to {@link #extract}: the longest key. */
    int MAX_KEY_LENGTH = 128;

    /**
     * @param channel the request's channel (an HTTP/2 stream channel for h2).
     * @param request the request head.
     * @param dst     a buffer of {@link #MAX_KEY_LENGTH} bytes.
     * @return the key length in [0, {@link #MAX_KEY_LENGTH}], or {@link #NO_KEY}.
     */
    int extract(Channel channel, HttpRequest request, byte[] dst);
}
