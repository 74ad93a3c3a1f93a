package sdchaos.eurekaserver;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.netflix.eureka.server.EnableEurekaServer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * A real Netflix Eureka server: Spring Cloud Netflix's {@code @EnableEurekaServer}, started by
 * the sdchaos harness as one of three peers on 127.0.0.1. Every setting comes from the command
 * line ({@code --eureka.server.eviction-interval-timer-in-ms=1000}, ...); the harness passes
 * them all (see the Go package eurekareal).
 *
 * <p>The only additions to a stock server: the registry bean is Spring Cloud's own
 * {@code InstanceRegistry} subclassed by {@link RecordingRegistry} (it records registrations,
 * cancellations, evictions and eviction-task runs as they happen, then calls the real code),
 * {@link StateController} serves {@code /sdchaos/state} and {@code /sdchaos/events}, and
 * {@link ConfigController} serves {@code /sdchaos/config} (the settings as the server holds them).
 */
@SpringBootApplication
@EnableEurekaServer
public class EurekaServerApp {

	/** Starts the server. */
	public static void main(String[] args) {
		SpringApplication.run(EurekaServerApp.class, args);
	}

	/**
	 * Swaps the registry bean definition for {@link RecordingRegistry} (static: a bean
	 * definition post-processor must not wait for this configuration's instance).
	 */
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static BeanDefinitionRegistryPostProcessor sdchaosRegistrySwap() {
		return new RegistrySwap();
	}
}
