package sdchaos.nacos.callers;

import com.alibaba.cloud.nacos.NacosServiceManager;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import java.net.URI;
import java.time.Instant;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.cloud.loadbalancer.annotation.LoadBalancerClients;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Spring Cloud Alibaba Nacos discovery + Spring Cloud LoadBalancer at their defaults: each call
 * goes through {@code LoadBalancerClient.execute(service, …)}, which throws "No instances
 * available for &lt;service&gt;" when the balancer's list is empty, the article's error.
 */
@SpringBootApplication
@LoadBalancerClients(defaultConfiguration = StaleFallbackConfiguration.class)
public class SpringCaller {

    /** Starts the Spring context with s's switches and calls until the end. */
    static void run(Settings s, String[] args) throws Exception {
        SpringApplication app = new SpringApplication(SpringCaller.class);
        app.setDefaultProperties(SpringProps.of(s));
        ConfigurableApplicationContext ctx = app.run(java.util.Arrays.copyOfRange(args, 1, args.length));
        listen(ctx, s);
        LoadBalancerClient lb = ctx.getBean(LoadBalancerClient.class);
        HttpProbe probe = new HttpProbe(s.callTimeout());
        // Warmed up through the Nacos client underneath, not LoadBalancer: its cache is first
        // filled by the first due call, as before.
        PlainCaller.warmUp(ctx.getBean(NacosServiceManager.class).getNamingService(), probe, s.service());
        Settings run = s.whenReady();
        Lines.started("spring " + s.describe());
        Pacer.run(run, due -> call(lb, probe, s.service(), due));
    }

    private static void call(LoadBalancerClient lb, HttpProbe probe, String service, Instant due) {
        Instant start = Instant.now();
        try {
            lb.execute(service, instance -> {
                URI uri = instance.getUri();
                probe.call(due, start, uri.getHost() + ":" + uri.getPort());
                return null;
            });
        } catch (IllegalStateException e) {
            // BlockingLoadBalancerClient.execute: "No instances available for <service>"
            HttpProbe.failed(due, start, e, ErrClass.NO_INSTANCE);
        } catch (Exception e) {
            HttpProbe.failed(due, start, e, ErrClass.OTHER);
        }
    }

    /** Prints what the Nacos client underneath holds each time its list changes. */
    private static void listen(ConfigurableApplicationContext ctx, Settings s) throws Exception {
        Setup.retry(s, "subscribing the listener", () -> ctx.getBean(NacosServiceManager.class).getNamingService().subscribe(s.service(), event -> {
            if (event instanceof NamingEvent e) {
                Lines.instances(e.getInstances().size());
            }
        }));
    }
}
