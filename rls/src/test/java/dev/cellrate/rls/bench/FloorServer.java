package dev.cellrate.rls.bench;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;

import java.net.InetSocketAddress;

/**
 * The floor of the measurement: a grpc-java server of the same shape as the rate limit service (Netty,
 * direct executor, the same service and message cap) that answers OK with one status per descriptor
 * without deciding anything. {@code java -cp ... dev.cellrate.rls.bench.FloorServer PORT}.
 */
public final class FloorServer
{
    private FloorServer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int port = Integer.parseInt(args[0]);
        final Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
            .directExecutor()
            .maxInboundMessageSize(1 << 20)
            .addService(new RateLimitServiceGrpc.RateLimitServiceImplBase()
            {
                public void shouldRateLimit(final RateLimitRequest request,
                    final StreamObserver<RateLimitResponse> observer)
                {
                    final RateLimitResponse.Builder response =
                        RateLimitResponse.newBuilder().setOverallCode(RateLimitResponse.Code.OK);
                    for (int i = 0; i < request.getDescriptorsCount(); i++)
                    {
                        response.addStatuses(RateLimitResponse.DescriptorStatus.newBuilder()
                            .setCode(RateLimitResponse.Code.OK));
                    }
                    observer.onNext(response.build());
                    observer.onCompleted();
                }
            })
            .build()
            .start();
        System.out.println("floor on " + server.getPort());
        server.awaitTermination();
    }
}
