package dev.cellrate.rls;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import com.google.protobuf.util.JsonFormat;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;

/**
 * Reads a {@code RateLimitRequest} in proto3's JSON form, as the reference service's {@code /json} reads it:
 * every field under its proto name or its JSON name, and an unknown field refused. That includes a descriptor's
 * {@code is_negative_hits} ({@code isNegativeHits}), a bool, which the generated classes in use lack: it is taken
 * out of the JSON and set on the descriptor as protobuf would carry it on the wire (field
 * {@value RlsService#IS_NEGATIVE_HITS_FIELD}, a varint), so the service reads it as it reads a gRPC request's.
 * <p>
 * Threading: any thread; stateless.
 */
final class JsonRequests
{
    private static final String PROTO_NAME = "is_negative_hits";
    private static final String JSON_NAME = "isNegativeHits";

    private JsonRequests()
    {
    }

    /**
     * @param json the body.
     * @return the request.
     * @throws InvalidProtocolBufferException if the body is not a request (the message says why).
     */
    static RateLimitRequest parse(final String json) throws InvalidProtocolBufferException
    {
        final JsonElement tree;
        try
        {
            tree = JsonParser.parseString(json);
        }
        catch (final JsonParseException ex) // also past Gson's nesting limit of 255
        {
            throw new InvalidProtocolBufferException("not JSON: " + ex.getMessage());
        }
        boolean[] negative = null;
        if (tree.isJsonObject() && tree.getAsJsonObject().get("descriptors") instanceof JsonArray)
        {
            final JsonArray descriptors = tree.getAsJsonObject().getAsJsonArray("descriptors");
            for (int i = 0; i < descriptors.size(); i++)
            {
                if (!descriptors.get(i).isJsonObject())
                {
                    continue; // the protobuf reader refuses it
                }
                final JsonObject descriptor = descriptors.get(i).getAsJsonObject();
                if (descriptor.has(PROTO_NAME) && descriptor.has(JSON_NAME))
                {
                    throw new InvalidProtocolBufferException("descriptors[" + i + "] sets " + PROTO_NAME + " twice");
                }
                final JsonElement flag = descriptor.has(PROTO_NAME) ? descriptor.remove(PROTO_NAME) :
                    descriptor.remove(JSON_NAME);
                if (null == flag || flag.isJsonNull())
                {
                    continue;
                }
                if (!(flag instanceof JsonPrimitive) || !((JsonPrimitive)flag).isBoolean())
                {
                    throw new InvalidProtocolBufferException(
                        "descriptors[" + i + "]." + PROTO_NAME + " must be true or false but was " + flag);
                }
                if (flag.getAsBoolean())
                {
                    if (null == negative)
                    {
                        negative = new boolean[descriptors.size()];
                    }
                    negative[i] = true;
                }
            }
        }
        final RateLimitRequest.Builder request = RateLimitRequest.newBuilder();
        JsonFormat.parser().merge(tree.toString(), request);
        if (null != negative)
        {
            for (int i = 0; i < negative.length && i < request.getDescriptorsCount(); i++)
            {
                if (negative[i])
                {
                    request.getDescriptorsBuilder(i).mergeUnknownFields(UnknownFieldSet.newBuilder()
                        .addField(RlsService.IS_NEGATIVE_HITS_FIELD,
                            UnknownFieldSet.Field.newBuilder().addVarint(1).build())
                        .build());
                }
            }
        }
        return request.build();
    }
}
