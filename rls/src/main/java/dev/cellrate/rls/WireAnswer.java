package dev.cellrate.rls;

import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import io.grpc.Drainable;
import io.grpc.KnownLength;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.IOException;

/**
 * A response written directly in protobuf's wire form, the bytes protobuf itself would write for the same
 * {@link RateLimitResponse} (fields in number order, proto3 defaults left out), into a buffer reused by its thread,
 * then read by gRPC as the message's stream. So the gRPC call answers without building protobuf messages.
 * <p>
 * Layout: {@code overall_code} (2 bytes, reserved first and written last), then each status, then each header.
 * <p>
 * Threading: one per thread ({@link #forThisThread()}); gRPC drains the stream within the {@code onNext} that
 * sends it, on the thread that encoded it, before that thread encodes another answer.
 */
final class WireAnswer extends InputStream implements AnswerSink, KnownLength, Drainable
{
    private static final int LENGTH_DELIMITED = 2;
    private static final int VARINT = 0;
    private static final int OVERALL_TAG = tag(RateLimitResponse.OVERALL_CODE_FIELD_NUMBER, VARINT);
    private static final int STATUS_TAG = tag(RateLimitResponse.STATUSES_FIELD_NUMBER, LENGTH_DELIMITED);
    private static final int HEADER_TAG = tag(RateLimitResponse.RESPONSE_HEADERS_TO_ADD_FIELD_NUMBER, LENGTH_DELIMITED);
    private static final int CODE_TAG = tag(DescriptorStatus.CODE_FIELD_NUMBER, VARINT);
    private static final int LIMIT_TAG = tag(DescriptorStatus.CURRENT_LIMIT_FIELD_NUMBER, LENGTH_DELIMITED);
    private static final int REMAINING_TAG = tag(DescriptorStatus.LIMIT_REMAINING_FIELD_NUMBER, VARINT);
    private static final int DURATION_TAG = tag(DescriptorStatus.DURATION_UNTIL_RESET_FIELD_NUMBER, LENGTH_DELIMITED);
    private static final int SECONDS_TAG = tag(com.google.protobuf.Duration.SECONDS_FIELD_NUMBER, VARINT);
    private static final int NANOS_TAG = tag(com.google.protobuf.Duration.NANOS_FIELD_NUMBER, VARINT);
    private static final int KEY_TAG = tag(HeaderValue.KEY_FIELD_NUMBER, LENGTH_DELIMITED);
    private static final int VALUE_TAG = tag(HeaderValue.VALUE_FIELD_NUMBER, LENGTH_DELIMITED);
    private static final int OVERALL_LENGTH = 2;
    private static final ThreadLocal<WireAnswer> PER_THREAD = ThreadLocal.withInitial(WireAnswer::new);

    private byte[] buffer = new byte[512];
    private int end;
    private int position;

    private WireAnswer()
    {
    }

    /**
     * @return this thread's holder, emptied.
     */
    static WireAnswer forThisThread()
    {
        final WireAnswer wire = PER_THREAD.get();
        wire.end = OVERALL_LENGTH;
        wire.position = 0;
        return wire;
    }

    private static int tag(final int field, final int wireType)
    {
        return field << 3 | wireType;
    }

    public void status(final int code, final RuleState state, final long remaining, final long resetNs)
    {
        final byte[] limit = null == state ? null : state.currentLimitBytes;
        int size = 1 + varintSize(code);
        if (null != limit)
        {
            size += 1 + varintSize(limit.length) + limit.length;
        }
        if (0 != remaining)
        {
            size += 1 + varintSize(remaining & 0xFFFF_FFFFL);
        }
        long seconds = 0;
        int nanos = 0;
        int durationSize = 0;
        if (NONE != resetNs)
        {
            seconds = resetNs / 1_000_000_000L;
            nanos = (int)(resetNs % 1_000_000_000L);
            durationSize = (0 == seconds ? 0 : 1 + varintSize(seconds)) + (0 == nanos ? 0 : 1 + varintSize(nanos));
            size += 1 + varintSize(durationSize) + durationSize;
        }
        ensure(1 + 5 + size);
        put(STATUS_TAG);
        varint(size);
        put(CODE_TAG);
        varint(code);
        if (null != limit)
        {
            put(LIMIT_TAG);
            varint(limit.length);
            System.arraycopy(limit, 0, buffer, end, limit.length);
            end += limit.length;
        }
        if (0 != remaining)
        {
            put(REMAINING_TAG);
            varint(remaining & 0xFFFF_FFFFL);
        }
        if (NONE != resetNs)
        {
            put(DURATION_TAG);
            varint(durationSize);
            if (0 != seconds)
            {
                put(SECONDS_TAG);
                varint(seconds);
            }
            if (0 != nanos)
            {
                put(NANOS_TAG);
                varint(nanos);
            }
        }
    }

    public void header(final String name, final byte[] value, final int length)
    {
        final int size = (name.isEmpty() ? 0 : 1 + varintSize(name.length()) + name.length()) +
            (0 == length ? 0 : 1 + varintSize(length) + length);
        ensure(1 + 5 + size);
        put(HEADER_TAG);
        varint(size);
        if (!name.isEmpty())
        {
            put(KEY_TAG);
            varint(name.length());
            for (int i = 0; i < name.length(); i++)
            {
                buffer[end++] = (byte)name.charAt(i); // header names are ASCII
            }
        }
        if (0 != length)
        {
            put(VALUE_TAG);
            varint(length);
            System.arraycopy(value, 0, buffer, end, length);
            end += length;
        }
    }

    public void overall(final int code)
    {
        buffer[0] = (byte)OVERALL_TAG;
        buffer[1] = (byte)code; // OK or OVER_LIMIT: one byte
    }

    /**
     * @return the bytes written, from the start (for tests).
     */
    byte[] toByteArray()
    {
        return java.util.Arrays.copyOf(buffer, end);
    }

    /**
     * @return this holder as the message's stream, from its first byte.
     */
    InputStream stream()
    {
        position = 0;
        return this;
    }

    private void ensure(final int more)
    {
        if (end + more > buffer.length)
        {
            buffer = java.util.Arrays.copyOf(buffer, Math.max(buffer.length * 2, end + more));
        }
    }

    private void put(final int b)
    {
        buffer[end++] = (byte)b;
    }

    /** A varint of a non-negative value, or of a negative one as protobuf writes an int32 or int64: 10 bytes. */
    private void varint(final long value)
    {
        long v = value;
        while ((v & ~0x7FL) != 0)
        {
            buffer[end++] = (byte)((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buffer[end++] = (byte)v;
    }

    private static int varintSize(final long value)
    {
        return value < 0 ? 10 : (63 - Long.numberOfLeadingZeros(value | 1)) / 7 + 1;
    }

    public int read()
    {
        return position < end ? buffer[position++] & 0xFF : -1;
    }

    public int read(final byte[] b, final int off, final int len)
    {
        if (position >= end)
        {
            return len == 0 ? 0 : -1;
        }
        final int n = Math.min(len, end - position);
        System.arraycopy(buffer, position, b, off, n);
        position += n;
        return n;
    }

    public int available()
    {
        return end - position;
    }

    public int drainTo(final OutputStream target) throws IOException
    {
        final int n = end - position;
        target.write(buffer, position, n);
        position = end;
        return n;
    }
}
