package sdchaos.nacos;

import com.alibaba.nacos.naming.remote.udp.UdpConnector;
import java.lang.reflect.Field;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketException;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Rebinds the UDP socket of Nacos's {@link UdpConnector} to 127.0.0.1.
 *
 * <p>UdpConnector (push to 1.x clients over UDP, and their acks) opens
 * {@code new DatagramSocket()}, an ephemeral port on every interface. The harness listens on
 * 127.0.0.1 only, so once the bean exists its socket is replaced by one bound to 127.0.0.1 and
 * the original closed (the connector's receive loop reads the field on every turn and carries on
 * with the new socket). No client here uses UDP push.
 */
final class LoopbackUdp implements BeanPostProcessor {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof UdpConnector) {
            rebind(bean);
        }
        return bean;
    }

    private static void rebind(Object connector) {
        try {
            Field field = UdpConnector.class.getDeclaredField("udpSocket");
            field.setAccessible(true);
            DatagramSocket old = (DatagramSocket) field.get(connector);
            field.set(connector, new DatagramSocket(new InetSocketAddress("127.0.0.1", 0)));
            old.close();
        } catch (ReflectiveOperationException | SocketException e) {
            throw new IllegalStateException("rebinding Nacos's UDP socket to 127.0.0.1", e);
        }
    }
}
