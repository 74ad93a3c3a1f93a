package sdchaos.nacos;

import com.alibaba.nacos.NacosServerBasicApplication;
import com.alibaba.nacos.NacosServerWebApplication;
import com.alibaba.nacos.core.listener.startup.NacosStartUp;
import com.alibaba.nacos.core.listener.startup.NacosStartUpManager;
import com.alibaba.nacos.sys.env.DeploymentType;
import com.alibaba.nacos.sys.env.EnvUtil;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts a real Nacos server (the republished 3.1.0 modules) without its console.
 *
 * <p>The republication on Maven Central has no nacos-bootstrap module, so this class does what
 * that module's NacosBootstrap does for {@code nacos.deployment.type=server}: it starts Nacos's
 * own core context ({@link NacosServerBasicApplication}, no web server) and, as its child, the
 * server web context ({@link NacosServerWebApplication}: Tomcat with the HTTP open and admin
 * APIs, and the gRPC servers started by the core beans). No Nacos behaviour is written here;
 * two sockets Nacos binds on every interface are kept on 127.0.0.1 ({@link LoopbackUdp} and
 * com.alipay.sofa.jraft.rpc.impl.LoopbackGrpcRaftRpcFactory).
 */
public final class ServerMain {

    private ServerMain() {
    }

    /**
     * Runs the server until the process is killed.
     *
     * @param args Spring arguments (e.g. --nacos.server.main.port=10700)
     */
    public static void main(String[] args) {
        EnvUtil.setDeploymentType(DeploymentType.SERVER);
        NacosStartUpManager.start(NacosStartUp.CORE_START_UP_PHASE);
        ConfigurableApplicationContext core = new SpringApplicationBuilder(NacosServerBasicApplication.class)
                .web(WebApplicationType.NONE).initializers(ServerMain::loopbackOnly).run(args);
        NacosStartUpManager.start(NacosStartUp.WEB_START_UP_PHASE);
        new SpringApplicationBuilder(NacosServerWebApplication.class).parent(core)
                .initializers(ServerMain::loopbackOnly).run(args);
    }

    /** Adds the post-processor that keeps Nacos's UDP socket on 127.0.0.1. */
    private static void loopbackOnly(ConfigurableApplicationContext context) {
        context.getBeanFactory().addBeanPostProcessor(new LoopbackUdp());
    }
}
