package com.alipay.sofa.jraft.rpc.impl;

import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.util.Endpoint;
import com.alipay.sofa.jraft.util.SPI;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.util.MutableHandlerRegistry;
import java.net.InetSocketAddress;

/**
 * JRaft's gRPC transport, bound to the address its endpoint names.
 *
 * <p>Nacos starts JRaft even standalone (for naming metadata) on main port - 1000, and
 * {@link GrpcRaftRpcFactory} binds that port on every interface ({@code ServerBuilder.forPort}).
 * The harness listens on 127.0.0.1 only, so this factory (SPI priority 2, above the original's
 * 1) builds the same server with {@code forAddress(endpoint)}; the endpoint's IP is
 * {@code nacos.server.ip} (127.0.0.1). Everything else is the original's. It lives in JRaft's
 * package to reach the original's package-private settings.
 */
@SPI(priority = 2)
public class LoopbackGrpcRaftRpcFactory extends GrpcRaftRpcFactory {

    @Override
    public RpcServer createRpcServer(Endpoint endpoint, ConfigHelper<RpcServer> helper) {
        MutableHandlerRegistry registry = new MutableHandlerRegistry();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(endpoint.getIp(), endpoint.getPort()))
                .fallbackHandlerRegistry(registry).directExecutor()
                .maxInboundMessageSize(RPC_MAX_INBOUND_MESSAGE_SIZE).build();
        GrpcServer rpcServer = new GrpcServer(server, registry, parserClasses, getMarshallerRegistry());
        if (helper != null) {
            helper.config(rpcServer);
        }
        return rpcServer;
    }
}
