package sdchaos.zookeeper.callers;

import java.net.URI;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.listen.StandardListenerManager;
import org.apache.curator.framework.listen.UnaryListenerManager;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.cloud.zookeeper.CuratorFrameworkCustomizer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Spring Cloud Zookeeper discovery + Spring Cloud LoadBalancer at their defaults: each call goes
 * through {@code LoadBalancerClient.execute(service, …)}, which throws "No instances available for
 * &lt;service&gt;" when the balancer's list is empty. The only addition is a listener of Curator's
 * connection states, put into the client's listener manager before Spring starts it (Curator's own
 * pass-through manager, so nothing else changes), so CONNECTED is seen too.
 */
@SpringBootApplication
public class SpringCaller {

    /** Starts the Spring context with s's settings and calls until the end. */
    static void run(Settings s, String[] args) throws Exception {
        SpringApplication app = new SpringApplication(SpringCaller.class);
        app.setDefaultProperties(properties(s));
        ConfigurableApplicationContext ctx = app.run(Arrays.copyOfRange(args, 1, args.length));
        LoadBalancerClient lb = ctx.getBean(LoadBalancerClient.class);
        HttpProbe probe = new HttpProbe(s.callTimeout());
        // Warmed up through the DiscoveryClient, not LoadBalancer: its cache is first filled by the
        // first due call.
        List<ServiceInstance> found = ctx.getBean(DiscoveryClient.class).getInstances(s.service());
        if (!found.isEmpty()) {
            probe.warmUp(target(found.get(0).getUri()));
        }
        boolean connected = ctx.getBean(CuratorFramework.class).getZookeeperClient().isConnected();
        Settings run = s.whenReady();
        Lines.started("spring " + s.describe() + " connected=" + connected);
        Pacer.run(run, due -> call(lb, probe, s.service(), due));
    }

    /** Prints every connection state change of Spring's CuratorFramework. */
    @Bean
    CuratorFrameworkCustomizer connectionLines() {
        return builder -> builder.connectionStateListenerManagerFactory(client -> {
            UnaryListenerManager<ConnectionStateListener> m = StandardListenerManager.standard();
            m.addListener((c, state) -> Lines.connection(state.name()));
            return m;
        });
    }

    private static void call(LoadBalancerClient lb, HttpProbe probe, String service, Instant due) {
        Instant start = Instant.now();
        try {
            lb.execute(service, instance -> {
                if (!probe.inTime(due, start, "no instance chosen: LoadBalancer's discovery read blocked")) {
                    return null;
                }
                probe.call(due, start, target(instance.getUri()));
                return null;
            });
        } catch (Exception e) {
            if (probe.inTime(due, start, "LoadBalancer failed after its discovery read blocked (" + e + ")")) {
                HttpProbe.failed(due, start, e);
            }
        }
    }

    private static String target(URI uri) {
        return uri.getHost() + ":" + uri.getPort();
    }

    /** Spring Cloud Zookeeper's names for the settings; everything else at its default. */
    static Map<String, Object> properties(Settings s) {
        Map<String, Object> p = new HashMap<>();
        p.put("spring.main.web-application-type", "none");
        p.put("spring.main.banner-mode", "off");
        p.put("spring.application.name", "sdchaos-caller");
        p.put("spring.cloud.zookeeper.connect-string", s.connect());
        p.put("spring.cloud.zookeeper.discovery.register", "false");
        p.put("spring.cloud.zookeeper.discovery.root", s.basePath());
        if (s.sessionTimeout() != null) {
            p.put("spring.cloud.zookeeper.session-timeout", s.sessionTimeout().toMillis() + "ms");
        }
        if (s.connectionTimeout() != null) {
            p.put("spring.cloud.zookeeper.connection-timeout", s.connectionTimeout().toMillis() + "ms");
        }
        // LoadBalancer builds each client's child context on its first call (a second or two of
        // class loading on a shared machine): build it at start instead. Its list is still fetched,
        // and cached for 35 s, from the first call on.
        p.put("spring.cloud.loadbalancer.eager-load.clients", s.service());
        return p;
    }
}
