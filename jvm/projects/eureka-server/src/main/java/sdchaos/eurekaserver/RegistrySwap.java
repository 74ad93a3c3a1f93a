package sdchaos.eurekaserver;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;

/**
 * Replaces the definition of Spring Cloud's registry bean {@code peerAwareInstanceRegistry}
 * (made by {@code EurekaServerAutoConfiguration.peerAwareInstanceRegistry}, which has no
 * {@code @ConditionalOnMissingBean}) by one made by {@link RegistryFactory#registry}, which
 * builds a {@link RecordingRegistry} from the same beans and properties. It runs after the
 * auto-configuration's definitions are registered (a plain, unordered registry post-processor
 * runs after Spring's own configuration-class processor), so no bean overriding is enabled.
 */
final class RegistrySwap implements BeanDefinitionRegistryPostProcessor {

	/** The bean name Spring Cloud gives its registry (its factory method's name). */
	static final String REGISTRY_BEAN = "peerAwareInstanceRegistry";

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) throws BeansException {
		if (!registry.containsBeanDefinition(REGISTRY_BEAN)) {
			throw new IllegalStateException("no bean " + REGISTRY_BEAN + " to replace: Spring Cloud Netflix changed");
		}
		registry.removeBeanDefinition(REGISTRY_BEAN);
		AbstractBeanDefinition def = BeanDefinitionBuilder.genericBeanDefinition(RecordingRegistry.class)
			.setFactoryMethodOnBean("registry", "sdchaosRegistryFactory")
			.setAutowireMode(AbstractBeanDefinition.AUTOWIRE_CONSTRUCTOR)
			.getBeanDefinition();
		registry.registerBeanDefinition(REGISTRY_BEAN, def);
	}
}
